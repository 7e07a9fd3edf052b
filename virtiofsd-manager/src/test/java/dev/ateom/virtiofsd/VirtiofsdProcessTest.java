package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.fixtures.wait.BlockedAsyncPool;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.fixtures.wait.ProcessStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One virtiofsd at a time, real processes. */
class VirtiofsdProcessTest {

    @RegisterExtension
    static final LauncherUnderTest fixture = new LauncherUnderTest("vfsd-proc");
    private Path shared;
    private Path run;

    @BeforeEach
    void dirs() throws IOException {
        Path test = Files.createTempDirectory(fixture.base(), "t");
        shared = Files.createDirectories(test.resolve("share"));
        run = Files.createDirectories(test.resolve("run"));
    }

    private ShareSpec spec(ShareKind kind) {
        return ShareSpec.inRunDir("sb-test", kind, shared, run, ShareOptions.DEFAULT);
    }

    @Test
    void startsListensAnswersVhostUserAndStopsWithoutLeavingAnything() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.DURABLE));

        assertThat(Files.readString(process.spec().pidFile()).strip()).isEqualTo(Long.toString(process.pid()));
        assertThat(fixture.launcher().running()).contains(process);
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(process.socketPath())) {
            assertThat(frontend.getFeatures() & VhostUserFrontend.PROTOCOL_FEATURES_BIT).isNotZero();
            VirtiofsdExit exit = process.stop();
            assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
        }
        assertThat(LinuxProcess.read(process.pid()).filter(p -> !p.isZombie())).isEmpty();
        assertThat(process.socketPath()).doesNotExist();
        assertThat(process.spec().pidFile()).doesNotExist();
        assertThat(fixture.launcher().running()).doesNotContain(process);
        assertThat(ProcessLeaks.mentioning(run)).isEmpty();
    }

    @Test
    void frontendDisconnectIsReportedAsSuchNotAsACrash() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.SYSTEM_INFO));
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(process.socketPath())) {
            frontend.getFeatures();
            frontend.setOwner();
        }
        VirtiofsdExit exit = process.onExit().get(10, TimeUnit.SECONDS);

        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
        assertThat(exit.describe()).isEqualTo("frontend disconnected");
        assertThat(exit.exitStatus()).hasValue(0);
        assertThat(exit.logTail()).anyMatch(l -> l.contains("Client disconnected"));
        assertThat(process.failure()).as("its VMM left it first: no cause of a VMM's failure").isEmpty();
        assertThat(process.socketPath()).doesNotExist();
        assertThat(process.spec().pidFile()).doesNotExist();
        assertThat(process.isAlive()).isFalse();
    }

    @Test
    void killEndsItAndItsSandboxChildAtOnceAsAStop() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.ROOTFS));
        process.serving().get(10, TimeUnit.SECONDS);
        Set<Long> sandboxChildren = childPids(process.pid());
        assertThat(sandboxChildren).as("the namespace sandbox's child").isNotEmpty();

        VirtiofsdExit exit = process.kill();

        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
        assertThat(process.isAlive()).isFalse();
        assertThat(process.socketPath()).doesNotExist();
        for (long child : sandboxChildren) {
            assertThat(LinuxProcess.read(child).filter(p -> !p.isZombie())).as("sandbox child %d", child).isEmpty();
        }
    }

    @Test
    void killMinus9IsReportedAsACrashWithTheSignal() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.ROOTFS));
        process.serving().get(10, TimeUnit.SECONDS);
        Set<Long> sandboxChildren = childPids(process.pid());

        kill("-9", process.pid());
        VirtiofsdExit exit = process.onExit().get(10, TimeUnit.SECONDS);

        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.CRASHED);
        assertThat(exit.signal()).hasValue(9);
        assertThat(exit.describe()).isEqualTo("crashed: killed by signal 9 (SIGKILL)");
        assertThat(process.socketPath()).as("killed virtiofsd leaves its socket; the manager removes it").doesNotExist();
        for (long child : sandboxChildren) {
            assertThat(LinuxProcess.read(child).filter(p -> !p.isZombie())).as("sandbox child %d", child).isEmpty();
        }
    }

    /** The exit is seen without any stage on the common fork-join pool, which anything in the JVM may block. */
    @Test
    void aCrashIsSeenWhileTheCommonPoolIsBlocked() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.DURABLE));
        process.serving().get(10, TimeUnit.SECONDS);
        try (BlockedAsyncPool blocked = BlockedAsyncPool.hold()) {
            kill("-9", process.pid());
            assertThat(process.onExit().get(10, TimeUnit.SECONDS).reason()).isEqualTo(VirtiofsdExit.Reason.CRASHED);
        }
    }

    @Test
    void killingTheSandboxedChildIsACrashToo() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.ROOTFS));
        process.serving().get(10, TimeUnit.SECONDS);
        Set<Long> children = settledChildPids(process.pid());
        assertThat(children).as("namespace sandbox forks a child").hasSize(1);

        kill("-9", children.iterator().next());
        VirtiofsdExit exit = process.onExit().get(10, TimeUnit.SECONDS);

        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.CRASHED);
        assertThat(exit.signal()).hasValue(9);
    }

    @Test
    void stopSendsSigkillWhenSigtermIsIgnored() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.ROOTFS));
        kill("-STOP", process.pid()); // a stopped process cannot act on SIGTERM; SIGKILL still works

        VirtiofsdExit exit = process.stop(Duration.ofMillis(300));

        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
        assertThat(exit.signal()).as("ended by the SIGKILL").hasValue(9);
        assertThat(LinuxProcess.read(process.pid()).filter(p -> !p.isZombie())).isEmpty();
        assertThat(process.socketPath()).doesNotExist();
    }

    @Test
    void restartServesTheSameShareOnANewSocket() throws Exception {
        VirtiofsdProcess first = fixture.launcher().start(spec(ShareKind.DURABLE));
        Path newSocket = run.resolve("durable-2.sock");

        VirtiofsdProcess second = first.restart(newSocket);
        try {
            assertThat(first.isAlive()).isFalse();
            assertThat(first.socketPath()).doesNotExist();
            assertThat(second.pid()).isNotEqualTo(first.pid());
            assertThat(second.socketPath()).isEqualTo(newSocket);
            try (VhostUserFrontend frontend = VhostUserFrontend.connect(newSocket)) {
                assertThat(frontend.getFeatures()).isNotZero();
            }
        } finally {
            second.stop();
        }
    }

    @Test
    void staleSocketFileIsRemovedBeforeStart() throws Exception {
        ShareSpec spec = spec(ShareKind.DURABLE);
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(UnixDomainSocketAddress.of(spec.socketPath()));
        } // closing does not unlink: the file stays, like after a killed virtiofsd
        Files.writeString(spec.pidFile(), "999999\n");
        assertThat(Files.exists(spec.socketPath(), LinkOption.NOFOLLOW_LINKS)).isTrue();

        VirtiofsdProcess process = fixture.launcher().start(spec);
        try {
            assertThat(Files.readString(spec.pidFile()).strip()).isEqualTo(Long.toString(process.pid()));
            try (VhostUserFrontend frontend = VhostUserFrontend.connect(spec.socketPath())) {
                assertThat(frontend.getFeatures()).isNotZero();
            }
        } finally {
            process.stop();
        }
    }

    @Test
    void socketPathAnotherVirtiofsdListensOnIsRefused() {
        VirtiofsdProcess first = fixture.launcher().start(spec(ShareKind.DURABLE));
        try {
            assertThatThrownBy(() -> fixture.launcher().start(spec(ShareKind.DURABLE)))
                    .isInstanceOf(VirtiofsdException.class)
                    .hasMessageContaining("is in use")
                    .hasMessageContaining(first.socketPath().toString());
            assertThat(first.isAlive()).isTrue();
            assertThat(first.socketPath()).exists();
        } finally {
            first.stop();
        }
    }

    @Test
    void startingFromAThreadThatEndsDoesNotTriggerTheParentDeathSignal() throws Exception {
        AtomicReference<VirtiofsdProcess> started = new AtomicReference<>();
        Thread shortLived = Thread.ofPlatform().name("short-starter").start(() -> started.set(fixture.launcher().start(spec(ShareKind.ROOTFS))));
        shortLived.join();
        // once the kernel's task of the thread is gone, a parent-death signal it caused is pending or done
        Eventually.until(Duration.ofSeconds(5), () -> !ProcessStatus.threadExists("short-starter"), "the starting thread to end");

        VirtiofsdProcess process = started.get();
        try {
            assertThat(ProcessStatus.survives(process.pid())).as("no SIGKILL on its way").isTrue();
            assertThat(process.onExit()).isNotDone();
        } finally {
            process.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(ShareOptions.SandboxMode.class)
    void theRealVirtiofsdAcceptsEverySandboxModeAndTheOtherOptions(ShareOptions.SandboxMode mode) throws Exception {
        ShareOptions options = new ShareOptions(mode, 2, ShareOptions.LogLevel.DEBUG, true);
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.SYSTEM_INFO).withOptions(options));
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(process.socketPath())) {
            assertThat(frontend.getFeatures()).isNotZero();
        }
        VirtiofsdExit exit = process.onExit().get(10, TimeUnit.SECONDS);
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
        assertThat(exit.logTail()).as("debug logging is on").anyMatch(l -> l.contains("DEBUG"));
    }

    @Test
    void missingSharedDirIsRefusedBeforeAnythingStarts() {
        ShareSpec spec = ShareSpec.inRunDir("sb-test", ShareKind.DURABLE, shared.resolve("missing"), run, ShareOptions.DEFAULT);
        assertThatThrownBy(() -> fixture.launcher().start(spec))
                .isInstanceOf(VirtiofsdException.class)
                .hasMessage("sandbox sb-test share ateDurable: shared dir " + shared.resolve("missing") + " does not exist");
        assertNothingStarted();
    }

    @Test
    void sharedDirThatIsAFileIsRefused() throws IOException {
        Path file = Files.writeString(shared.resolve("file"), "x");
        ShareSpec spec = ShareSpec.inRunDir("sb-test", ShareKind.ROOTFS, file, run, ShareOptions.DEFAULT);
        assertThatThrownBy(() -> fixture.launcher().start(spec))
                .hasMessageContaining("shared dir " + file + " is not a directory");
        assertNothingStarted();
    }

    @Test
    void tooLongSocketPathIsRefusedBeforeAnythingStarts() throws IOException {
        Path deep = Files.createDirectories(run.resolve("d".repeat(100)));
        ShareSpec spec = spec(ShareKind.ROOTFS).withSocketPath(deep.resolve("rootfs.sock"));
        assertThatThrownBy(() -> fixture.launcher().start(spec))
                .isInstanceOf(VirtiofsdException.class)
                .hasMessageContaining("socket path " + spec.socketPath())
                .hasMessageContaining("longer than the 107 bytes");
        assertNothingStarted();
    }

    @Test
    void socketPathOfExactly107BytesIsAccepted() throws IOException {
        String prefix = run + "/";
        int nameLength = 107 - prefix.length();
        Path socket = Path.of(prefix + "s".repeat(nameLength - 5) + ".sock");
        assertThat(socket.toString()).hasSize(107);
        VirtiofsdProcess process = fixture.launcher().start(spec(ShareKind.ROOTFS).withSocketPath(socket));
        process.stop();
    }

    @Test
    void missingSocketDirectoryIsRefused() {
        ShareSpec spec = spec(ShareKind.ROOTFS).withSocketPath(run.resolve("gone/rootfs.sock"));
        assertThatThrownBy(() -> fixture.launcher().start(spec)).hasMessageContaining("directory of socket path");
        assertNothingStarted();
    }

    @Test
    void virtiofsdThatDiesAtStartupIsReportedWithItsStatusAndLog() throws IOException {
        Path script = run.resolve("virtiofsd");
        Files.writeString(script, "#!/bin/sh\necho 'Error: cannot serve: boom' >&2\nexit 3\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        VirtiofsdBinary failing = new VirtiofsdBinary(script, "1.14.0", Set.of(), "");
        try (VirtiofsdLauncher failingLauncher = new VirtiofsdLauncher(failing, VirtiofsdLauncher.Settings.DEFAULT)) {
            assertThatThrownBy(() -> failingLauncher.start(spec(ShareKind.DURABLE)))
                    .isInstanceOf(VirtiofsdException.class)
                    .hasMessageContaining("exited before listening")
                    .hasMessageContaining("exit status 3")
                    .hasMessageContaining("boom");
            assertThat(failingLauncher.running()).isEmpty();
        }
    }

    /**
     * A start returns at the listen, before virtiofsd forks the child that serves; a kill right then must still leave
     * nothing (the child forked after the kill read the tree dies by its parent-death signal, and the exit waits for
     * its socket), so that a start on the same path succeeds at once. Some rounds kill before the fork, some after.
     */
    @Test
    void aKillRightAfterTheStartLeavesNothingAndTheSamePathStartsAgain() throws Exception {
        ShareSpec spec = spec(ShareKind.DURABLE);
        for (int round = 0; round < 15; round++) {
            VirtiofsdProcess process = fixture.launcher().start(spec);
            if (round % 3 == 1) Thread.sleep(1);
            if (round % 3 == 2) Thread.sleep(3);

            VirtiofsdExit exit = process.kill();

            assertThat(exit.reason()).as("round %d", round).isEqualTo(VirtiofsdExit.Reason.STOPPED);
            assertThat(ProcessLeaks.mentioning(run)).as("processes after round %d's kill", round).isEmpty();
            assertThat(UnixSocketTable.listeningInodes(spec.socketPath())).as("listeners after round %d's kill", round).isEmpty();
            assertThat(process.serving().handle((served, failed) -> true).get(5, TimeUnit.SECONDS))
                    .as("round %d: serving settles, served before the kill or failed by it", round).isTrue();
        }
        VirtiofsdProcess last = fixture.launcher().start(spec);
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(last.socketPath())) {
            assertThat(frontend.getFeatures()).isNotZero();
            last.serving().get(10, TimeUnit.SECONDS);
        } finally {
            last.stop();
        }
    }

    /** A set-up that fails after the listen is no failure of the start but the process's exit, which serving() names. */
    @Test
    void aVirtiofsdThatDiesAfterListeningFailsItsServingWithTheStatusAndLog() throws Exception {
        try (VirtiofsdLauncher fake = new VirtiofsdLauncher(ListeningFake.binary(run, "exit"), VirtiofsdLauncher.Settings.DEFAULT)) {
            VirtiofsdProcess process = fake.start(spec(ShareKind.DURABLE));

            assertThatThrownBy(() -> process.serving().get(10, TimeUnit.SECONDS))
                    .hasMessageContaining("exited after listening")
                    .hasMessageContaining("failed: exit status 3")
                    .hasMessageContaining("Error: cannot set up the sandbox");
            assertThat(process.failure()).get().asString().contains("exit status 3");
            assertThat(fake.running()).isEmpty();
            assertThat(process.socketPath()).doesNotExist();
        }
    }

    /**
     * One whose VMM connected and left before a poll saw it serve (a loaded host: fcF) did serve: its serving completes
     * and its disconnect is no failure that could explain a VMM's.
     */
    @Test
    void aVirtiofsdWhoseFrontendLeftBeforeAnyPollSawItServeDidServe() throws Exception {
        try (VirtiofsdLauncher fake = new VirtiofsdLauncher(ListeningFake.binary(run, "served"), VirtiofsdLauncher.Settings.DEFAULT)) {
            VirtiofsdProcess process = fake.start(spec(ShareKind.DURABLE));

            assertThat(process.onExit().get(10, TimeUnit.SECONDS).reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
            assertThat(process.serving()).succeedsWithin(Duration.ofSeconds(10));
            assertThat(process.failure()).isEmpty();
            assertThat(fake.running()).isEmpty();
        }
    }

    /** One that listens and never sets itself up is killed once the ready timeout passes: a VMM waiting on it fails. */
    @Test
    void aVirtiofsdThatListensButNeverServesIsKilledAfterTheReadyTimeout() throws Exception {
        VirtiofsdLauncher.Settings quick = new VirtiofsdLauncher.Settings(Duration.ofSeconds(5), Duration.ofSeconds(1),
                4L << 20, 2, Duration.ofSeconds(10));
        try (VirtiofsdLauncher fake = new VirtiofsdLauncher(ListeningFake.binary(run, "hang"), quick)) {
            VirtiofsdProcess process = fake.start(spec(ShareKind.DURABLE));
            assertThat(process.serving()).isNotDone();

            assertThatThrownBy(() -> process.serving().get(10, TimeUnit.SECONDS))
                    .hasMessageContaining("did not serve within 5000 ms");
            assertThat(process.onExit().get(10, TimeUnit.SECONDS).reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
            assertThat(process.failure()).get().asString().contains("did not serve");
            assertThat(ProcessLeaks.mentioning(run)).isEmpty();
        }
    }

    private void assertNothingStarted() {
        assertThat(ProcessLeaks.mentioning(run)).isEmpty();
        try (var files = Files.list(run)) {
            assertThat(files.filter(f -> !Files.isDirectory(f))).as("files created in the run dir").isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<Long> childPids(long pid) {
        return ProcessHandle.of(pid).orElseThrow().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /**
     * The children that stay: virtiofsd also forks a short-lived helper beside its sandbox child, which a read right
     * after the start may still see (and which is gone by the time it is signalled). Two equal reads 50 ms apart.
     */
    static Set<Long> settledChildPids(long pid) throws InterruptedException {
        Set<Long> previous = childPids(pid);
        for (int i = 0; i < 100; i++) {
            Thread.sleep(50);
            Set<Long> now = childPids(pid);
            if (now.equals(previous)) return now;
            previous = now;
        }
        return previous;
    }

    static void kill(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
    }
}
