package dev.ateom.microvm.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module table of docs/DESIGN.md: libraries never use the daemon, the four libraries never use each other,
 * child-process, which three of them share (chv-client, virtiofsd-manager, network), uses none of them, and snapshot-store uses the snapshot module and nothing
 * else of ours.
 */
class ModuleBoundariesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // test jars on the class path (the network module's test hosts) are test code too
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.ateom");
    }

    @Test
    void everyModuleIsOnTheClasspath() {
        for (String pkg : new String[] {"dev.ateom.process", "dev.ateom.jail", "dev.ateom.chv", "dev.ateom.virtiofsd", "dev.ateom.snapshot", "dev.ateom.network",
                "dev.ateom.store", "dev.ateom.fixtures", "dev.ateom.microvm"}) {
            assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg))).as(pkg).isTrue();
        }
    }

    @Test
    void librariesNeverDependOnTheDaemon() {
        noClasses().that().resideInAnyPackage("dev.ateom.process..", "dev.ateom.jail..", "dev.ateom.chv..", "dev.ateom.virtiofsd..",
                        "dev.ateom.snapshot..", "dev.ateom.network..", "dev.ateom.store..", "dev.ateom.fixtures..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.microvm..")
                .check(classes);
    }

    @Test
    void theChildLauncherIsTheFloorEveryoneStandsOn() {
        noClasses().that().resideInAPackage("dev.ateom.process..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.chv..", "dev.ateom.virtiofsd..", "dev.ateom.snapshot..",
                        "dev.ateom.network..", "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
    }

    @Test
    void onlyTheChildLauncherForksChildren() {
        noClasses().that().resideInAnyPackage("dev.ateom.chv..", "dev.ateom.virtiofsd..", "dev.ateom.network..", "dev.ateom.microvm..")
                .should().callMethod(ProcessBuilder.class, "start")
                .because("children that must die with the daemon are started by the ChildLauncher of child-process alone")
                .check(classes);
    }

    /**
     * The jail (launcher, cgroups, uids) stands on nothing of ours, and the clients of CHV and virtiofsd know nothing
     * of it: CHV gets its jail as an argv prefix, which the daemon makes.
     */
    @Test
    void theJailStandsAloneAndOnlyTheDaemonUsesIt() {
        noClasses().that().resideInAPackage("dev.ateom.jail..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.process..", "dev.ateom.chv..", "dev.ateom.virtiofsd..",
                        "dev.ateom.snapshot..", "dev.ateom.network..", "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
        noClasses().that().resideInAnyPackage("dev.ateom.process..", "dev.ateom.chv..", "dev.ateom.virtiofsd..", "dev.ateom.snapshot..",
                        "dev.ateom.network..", "dev.ateom.store..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.jail..")
                .check(classes);
    }

    @Test
    void chvClientStandsAlone() {
        noClasses().that().resideInAPackage("dev.ateom.chv..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.virtiofsd..", "dev.ateom.snapshot..", "dev.ateom.network..",
                        "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
    }

    @Test
    void networkSlotsStandAlone() {
        noClasses().that().resideInAPackage("dev.ateom.network..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.chv..", "dev.ateom.virtiofsd..", "dev.ateom.snapshot..",
                        "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
    }

    /** Other software's firewall is touched in one place, which knows nothing of slots (only rules, chains and comments). */
    @Test
    void theHostFirewallKnowsNoSlots() {
        noClasses().that().resideInAPackage("dev.ateom.network.firewall..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.network")
                .because("the rules in other software's chains are found and removed by their comment alone, whatever the slots do")
                .check(classes);
    }

    @Test
    void virtiofsdManagerStandsAlone() {
        noClasses().that().resideInAPackage("dev.ateom.virtiofsd..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.chv..", "dev.ateom.snapshot..", "dev.ateom.network..",
                        "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
    }

    @Test
    void snapshotStandsAlone() {
        noClasses().that().resideInAPackage("dev.ateom.snapshot..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.chv..", "dev.ateom.virtiofsd..", "dev.ateom.network..",
                        "dev.ateom.store..", "dev.ateom.fixtures..")
                .check(classes);
    }

    /** The store builds on the snapshot module only: it never drives CHV, virtiofsd or the network. */
    @Test
    void snapshotStoreUsesOnlyTheSnapshotModule() {
        noClasses().that().resideInAPackage("dev.ateom.store..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.process..", "dev.ateom.chv..", "dev.ateom.virtiofsd..",
                        "dev.ateom.network..", "dev.ateom.fixtures..")
                .check(classes);
    }

    @Test
    void theSandboxDomainDoesNotSpeakHttp() {
        noClasses().that().resideInAPackage("dev.ateom.microvm.sandbox..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.microvm.http..", "dev.ateom.microvm.api..", "io.helidon..")
                .because("sandbox errors are domain exceptions, mapped to problem documents in http/ alone")
                .check(classes);
    }

    /**
     * The sandbox domain reaches the snapshot store only through its own interfaces (SnapshotFetcher, SandboxLeases,
     * PullFor), which remote/ implements: the store client and its exceptions stay in remote/ and config/.
     */
    @Test
    void theSandboxDomainUsesTheStoreOnlyThroughItsOwnInterfaces() {
        noClasses().that().resideInAPackage("dev.ateom.microvm.sandbox..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.store..", "dev.ateom.microvm.remote..")
                .check(classes);
    }

    /** The host's facts are read, never acted on: sandboxes and the API use them, not the other way round. */
    @Test
    void hostFactsDependOnNoSandboxOrApi() {
        noClasses().that().resideInAPackage("dev.ateom.microvm.host..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ateom.microvm.sandbox..", "dev.ateom.microvm.http..",
                        "dev.ateom.microvm.api..", "io.helidon..")
                .check(classes);
    }

    @Test
    void theDaemonDoesNotShipTestFixtures() {
        noClasses().that().resideInAPackage("dev.ateom.microvm..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.fixtures..")
                .check(classes);
    }

    /** Operations (and the machinery they share: leases, registry, recovery) live in sandbox.operation, beside each other. */
    @Test
    void operationsLiveInTheOperationPackage() {
        classes().that().resideInAPackage("dev.ateom.microvm.sandbox..").and().haveSimpleNameEndingWith("Operation")
                .and().doNotHaveSimpleName("Operation") // the enum of operation kinds, a domain type
                .should().resideInAPackage("dev.ateom.microvm.sandbox.operation")
                .check(classes);
    }

    /** The domain package holds the sandbox's types and its one dispatcher: nothing else of it reaches into the operations. */
    @Test
    void theDomainKnowsTheOperationsOnlyThroughItsDispatcher() {
        noClasses().that().resideInAPackage("dev.ateom.microvm.sandbox").and().doNotHaveSimpleName("SandboxManager")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.microvm.sandbox.operation")
                .because("a domain type that needs an operation's machinery belongs beside it in sandbox.operation")
                .check(classes);
    }

    @Test
    void theStandInCarriesGuestStreamsWithoutKnowingTheAgent() {
        // the stand-in's stream port relays bytes to any guest vsock port; the agent's test client speaks to the agent
        // over any byte stream (TCP, hybrid vsock of CHV, vhost-device-vsock or the stand-in)
        noClasses().that().resideInAPackage("dev.ateom.fixtures.chv..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.fixtures.guest.agent..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.ateom.fixtures.guest.agent..")
                .should().dependOnClassesThat().resideInAPackage("dev.ateom.fixtures.chv..")
                .check(classes);
    }
}
