package dev.nightshift.strategies;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's structure: no package cycle, and no I/O library: the planner is pure. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nightshift.strategies");

    /** Every package, nested ones too, is a slice: a cycle between any two means neither can be read or changed alone. */
    @Test
    void noPackageCycles() {
        slices().matching("dev.nightshift.strategies.(**)").should().beFreeOfCycles().check(MAIN);
    }

    /** Pure: the planner and the simulator take observed state as values (no Kubernetes client, no Git, no scheduler). */
    @Test
    void noClusterGitOrScheduler() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("io.fabric8..", "org.eclipse.jgit..", "org.quartz..", "dev.nightshift.agent..").check(MAIN);
    }
}
