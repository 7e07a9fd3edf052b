package dev.ateom.e2b;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The E2B API sits above the daemon: it uses the daemon's sandboxes, templates and extension SPI, and the daemon never
 * uses it (it is found by ServiceLoader). It drives sandboxes through SandboxManager, never through the operations.
 */
class E2bBoundariesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.ateom");
    }

    @Test
    void bothSidesAreOnTheClasspath() {
        assertThat(classes.stream().anyMatch(c -> c.getPackageName().equals("dev.ateom.e2b"))).isTrue();
        assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith("dev.ateom.microvm.sandbox"))).isTrue();
    }

    @Test
    void theDaemonNeverUsesTheE2bModule() {
        noClasses().that().resideInAnyPackage("dev.ateom.microvm..", "dev.ateom.chv..", "dev.ateom.snapshot..", "dev.ateom.store..",
                        "dev.ateom.network..", "dev.ateom.virtiofsd..", "dev.ateom.process..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.e2b..")
                .because("the domain does not learn E2B's words; the module plugs in through DaemonExtension")
                .check(classes);
    }

    @Test
    void theE2bModuleDrivesSandboxesOnlyThroughTheManager() {
        noClasses().that().resideInAPackage("dev.ateom.e2b..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.microvm.sandbox.operation..", "dev.ateom.microvm.api..",
                        "dev.ateom.microvm.vm..", "dev.ateom.microvm.remote..", "dev.ateom.fixtures..")
                .check(classes);
    }
}
