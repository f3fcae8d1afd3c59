package dev.nightshift.sandbox;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's structure: no package cycle. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nightshift.sandbox");

    /** Every package, nested ones too, is a slice: a cycle between any two means neither can be read or changed alone. */
    @Test
    void noPackageCycles() {
        slices().matching("dev.nightshift.sandbox.(**)").should().beFreeOfCycles().check(MAIN);
    }

}
