package dev.nightshift.spec;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's structure: no package cycle, and no I/O library: it is pure. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nightshift.spec");

    /** Every package, nested ones too, is a slice: a cycle between any two means neither can be read or changed alone. */
    @Test
    void noPackageCycles() {
        slices().matching("dev.nightshift.spec.(**)").should().beFreeOfCycles().check(MAIN);
    }

    /** Pure: the spec library reads files, nothing else (no Kubernetes client, no Git; Quartz only parses cron expressions). */
    @Test
    void noClusterOrGit() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.fabric8..", "org.eclipse.jgit..", "dev.nightshift.agent..", "dev.nightshift.strategies..").check(MAIN);
    }

    /**
     * The strict YAML reader is a library of its own, used by the spec's loader and by the agent's
     * configuration: it knows no spec package, only the JDK and SnakeYAML.
     */
    @Test
    void theYamlReaderDependsOnNothingButTheJdkAndSnakeYaml() {
        classes().that().resideInAPackage("dev.nightshift.spec.yaml..").should().onlyDependOnClassesThat()
                .resideInAnyPackage("dev.nightshift.spec.yaml..", "java..", "org.yaml.snakeyaml..").check(MAIN);
    }
}
