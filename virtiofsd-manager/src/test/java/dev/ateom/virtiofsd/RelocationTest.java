package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link VirtiofsdProcess#relocate}, with the real virtiofsd: a share whose shared dir, log and pid file were renamed and
 * whose socket got a second name serves on through that name, and its exit cleans the new paths.
 */
class RelocationTest {

    @RegisterExtension
    static final LauncherUnderTest fixture = new LauncherUnderTest("vfsd-move");

    @Test
    void aRelocatedShareServesThroughItsNewSocketNameAndItsExitCleansTheNewPaths() throws Exception {
        Path first = Files.createTempDirectory(fixture.base(), "first");
        Path second = Files.createTempDirectory(fixture.base(), "second");
        ShareSpec from = ShareSpec.inRunDir("made-ahead", ShareKind.DURABLE, Files.createDirectories(first.resolve("durable")),
                first, ShareOptions.DEFAULT);
        ShareSpec to = ShareSpec.inRunDir("clone-1", ShareKind.DURABLE, second.resolve("durable"), second, ShareOptions.DEFAULT);
        VirtiofsdProcess process = fixture.launcher().start(from);
        process.serving().get(10, TimeUnit.SECONDS);

        Files.move(from.sharedDir(), to.sharedDir(), StandardCopyOption.ATOMIC_MOVE);
        Files.move(from.logFile(), to.logFile(), StandardCopyOption.ATOMIC_MOVE);
        Files.move(from.pidFile(), to.pidFile(), StandardCopyOption.ATOMIC_MOVE);
        Files.createLink(to.socketPath(), from.socketPath());
        process.relocate(to);

        assertThat(process.socketPath()).isEqualTo(to.socketPath());
        assertThat(process.record().spec()).as("what a record of it names").isEqualTo(to);
        assertThat(process.logTail()).as("its log, read at the new path").isNotEmpty();
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(to.socketPath())) {
            assertThat(frontend.getFeatures() & VhostUserFrontend.PROTOCOL_FEATURES_BIT).isNotZero();
        }
        // the frontend's disconnect ends it, as a VMM's would
        VirtiofsdExit exit = process.onExit().get(30, TimeUnit.SECONDS);
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
        assertThat(to.socketPath()).as("the new socket name, removed at its exit").doesNotExist();
        assertThat(to.pidFile()).doesNotExist();
    }

    /** A start returns at the listen; its set-up opens the shared dir by path after that, so no move before it serves. */
    @Test
    void aShareThatDoesNotServeYetIsNotRelocated() throws Exception {
        Path dir = Files.createTempDirectory(fixture.base(), "listening");
        ShareSpec spec = ShareSpec.inRunDir("early", ShareKind.DURABLE, Files.createDirectories(dir.resolve("durable")), dir,
                ShareOptions.DEFAULT);
        try (VirtiofsdLauncher fake = new VirtiofsdLauncher(ListeningFake.binary(dir, "hang"), VirtiofsdLauncher.Settings.DEFAULT)) {
            VirtiofsdProcess process = fake.start(spec);
            try {
                assertThatThrownBy(() -> process.relocate(spec.withSocketPath(dir.resolve("other.sock"))))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("only once it serves");
                assertThat(process.socketPath()).isEqualTo(spec.socketPath());
            } finally {
                process.kill();
            }
        }
    }

    @Test
    void aShareThatOutlivesTheDaemonIsNotRelocated() throws Exception {
        Path dir = Files.createTempDirectory(fixture.base(), "outliving");
        ShareSpec spec = ShareSpec.inRunDir("kept", ShareKind.DURABLE, Files.createDirectories(dir.resolve("durable")), dir,
                ShareOptions.DEFAULT.withDieWithDaemon(false));
        VirtiofsdProcess process = fixture.launcher().start(spec);
        try {
            assertThatThrownBy(() -> process.relocate(spec.withSocketPath(dir.resolve("other.sock"))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("dies with the daemon");
            assertThat(process.socketPath()).isEqualTo(spec.socketPath());
        } finally {
            process.kill();
        }
    }
}
