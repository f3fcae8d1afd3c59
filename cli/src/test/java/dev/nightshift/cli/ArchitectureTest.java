package dev.nightshift.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The module's structure (one package, so no cycle to look for): the CLI names no sandbox class. */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nightshift.cli");

    /** The sandbox is a plug-in found at run time, so the same CLI is built and shipped without it (the image). */
    @Test
    void noSandbox() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.nightshift.sandbox..").check(MAIN);
    }
}
