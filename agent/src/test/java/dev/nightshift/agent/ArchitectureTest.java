package dev.nightshift.agent;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's structure: no package cycle; what runs in a cluster never reaches for the sandbox or the CLI. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nightshift.agent");

    /** Every package, nested ones too, is a slice: a cycle between any two means neither can be read or changed alone. */
    @Test
    void noPackageCycles() {
        slices().matching("dev.nightshift.agent.(**)").should().beFreeOfCycles().check(MAIN);
    }

    /** The doubles are features of the sandbox and fixtures of the tests; production code never depends on them. */
    @Test
    void noSandboxOrCli() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("dev.nightshift.sandbox..", "dev.nightshift.cli..", "io.fabric8.kubernetes.client.server.mock..",
                        "io.fabric8.mockwebserver..", "okhttp3.mockwebserver..", "io.vertx..").check(MAIN);
    }
}
