package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.process.ChildLauncher;
import dev.ateom.fixtures.wait.ProcessStatus;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What the daemon needs after its own restart: adopt running virtiofsd, kill leftovers, and the parent-death signal. */
class AdoptionTest {

    @RegisterExtension
    static final LauncherUnderTest fixture = new LauncherUnderTest("vfsd-adopt");
    private Path shared;
    private Path run;

    @BeforeEach
    void dirs() throws IOException {
        Path test = Files.createTempDirectory(fixture.base(), "t");
        shared = Files.createDirectories(test.resolve("share"));
        run = Files.createDirectories(test.resolve("run"));
    }

    private ShareSpec survivingSpec() {
        return ShareSpec.inRunDir("sb-adopt", ShareKind.DURABLE, shared, run, ShareOptions.DEFAULT.withDieWithDaemon(false));
    }

    @Test
    void adoptsByRecordAndStopsTheAdoptedProcess() throws Exception {
        ShareProcessRecord record = fixture.launcher().start(survivingSpec()).record();

        try (VirtiofsdLauncher restarted = TestVirtiofsd.launcher()) {
            VirtiofsdProcess adopted = restarted.adopt(record);
            assertThat(adopted.adopted()).isTrue();
            assertThat(adopted.pid()).isEqualTo(record.pid());
            assertThat(adopted.record()).isEqualTo(record);
            assertThat(restarted.running()).contains(adopted);

            VirtiofsdExit exit = adopted.stop();

            assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
            assertThat(LinuxProcess.read(record.pid()).filter(p -> !p.isZombie())).isEmpty();
            assertThat(record.spec().socketPath()).doesNotExist();
            assertThat(record.spec().pidFile()).doesNotExist();
            assertThat(ProcessLeaks.mentioning(run)).as("the sandboxed child is gone too").isEmpty();
        }
    }

    @Test
    void adoptsFromThePidFileAndSeesTheFrontendDisconnect() throws Exception {
        VirtiofsdProcess original = fixture.launcher().start(survivingSpec());

        try (VirtiofsdLauncher restarted = TestVirtiofsd.launcher()) {
            VirtiofsdProcess adopted = restarted.adoptFromPidFile(survivingSpec());
            assertThat(adopted.pid()).isEqualTo(original.pid());
            try (VhostUserFrontend frontend = VhostUserFrontend.connect(adopted.socketPath())) {
                frontend.getFeatures();
            }
            VirtiofsdExit exit = adopted.onExit().get(15, TimeUnit.SECONDS);
            assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
            assertThat(exit.exitStatus()).as("an adopted process's status is not ours to see").isEmpty();
        }
        assertThat(original.onExit().get(5, TimeUnit.SECONDS).reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
    }

    @Test
    void aShareSetIsAdoptedWholeOrNotAtAll() throws Exception {
        List<ShareSpec> specs = new ArrayList<>();
        for (ShareKind kind : ShareKind.values()) {
            Path dir = Files.createDirectories(shared.resolve(kind.shortName()));
            specs.add(ShareSpec.inRunDir("sb-adopt", kind, dir, run, ShareOptions.DEFAULT.withDieWithDaemon(false)));
        }
        List<ShareProcessRecord> records = ShareSet.start(fixture.launcher(), specs).records();

        try (VirtiofsdLauncher restarted = TestVirtiofsd.launcher()) {
            List<ShareProcessRecord> oneWrong = new ArrayList<>(records);
            ShareProcessRecord last = oneWrong.removeLast();
            oneWrong.add(new ShareProcessRecord(last.spec(), last.pid(), last.startTicks() + 1));
            assertThatThrownBy(() -> ShareSet.adopt(restarted, oneWrong)).hasMessageContaining("pid reused");
            assertThat(restarted.running()).isEmpty();

            ShareSet adopted = ShareSet.adopt(restarted, records);
            assertThat(adopted.processes()).containsOnlyKeys(ShareKind.values());
            assertThat(adopted.processes().values()).allMatch(VirtiofsdProcess::adopted).allMatch(VirtiofsdProcess::isAlive);
            assertThat(adopted.stop().values()).extracting(VirtiofsdExit::reason).containsOnly(VirtiofsdExit.Reason.STOPPED);
        }
        assertThat(ProcessLeaks.mentioning(run)).isEmpty();
        try (var files = Files.list(run)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".sock") || n.endsWith(".pid"));
        }
    }

    @Test
    void refusesAPidThatIsNotThatVirtiofsdAndLeavesItAlone() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            ShareProcessRecord wrong = new ShareProcessRecord(survivingSpec(), sleeper.pid(), 0);
            assertThatThrownBy(() -> fixture.launcher().adopt(wrong))
                    .isInstanceOf(VirtiofsdException.class)
                    .hasMessageContaining("refusing to adopt pid " + sleeper.pid())
                    .hasMessageContaining("'sleep 30'");
            assertThat(fixture.launcher().killLeftovers(wrong)).isEmpty();
            assertThat(sleeper.isAlive()).isTrue();
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void refusesAVirtiofsdOnAnotherSocketAndAReusedPid() {
        VirtiofsdProcess process = fixture.launcher().start(survivingSpec());
        try {
            ShareSpec elsewhere = survivingSpec().withSocketPath(run.resolve("other.sock"));
            assertThatThrownBy(() -> fixture.launcher().adopt(new ShareProcessRecord(elsewhere, process.pid(), 0)))
                    .hasMessageContaining("it is not virtiofsd on " + run.resolve("other.sock"));
            ShareProcessRecord reused = new ShareProcessRecord(survivingSpec(), process.pid(), process.record().startTicks() + 1);
            assertThatThrownBy(() -> fixture.launcher().adopt(reused)).hasMessageContaining("pid reused");
            assertThat(process.isAlive()).isTrue();
        } finally {
            process.stop();
        }
    }

    @Test
    void refusesAPidThatIsGone() throws Exception {
        VirtiofsdProcess process = fixture.launcher().start(survivingSpec());
        ShareProcessRecord record = process.record();
        process.stop();
        assertThatThrownBy(() -> fixture.launcher().adopt(record))
                .isInstanceOf(VirtiofsdException.class)
                .hasMessageContaining("cannot adopt virtiofsd pid " + record.pid());
    }

    @Test
    void killLeftoversKillsOnlyTheVirtiofsdOnThatSocket() throws Exception {
        Path socketA = run.resolve("a.sock");
        Path socketB = run.resolve("b.sock");
        // left behind by a daemon that died: not started through any launcher
        Process leftoverA = startBare(socketA);
        Process leftoverB = startBare(socketB);
        Process bystander = new ProcessBuilder("sh", "-c", "sleep 30", "sh", "--socket-path=" + socketA).start();
        try {
            awaitListening(socketA);
            awaitListening(socketB);

            List<Long> killed = fixture.launcher().killLeftovers(socketA);

            assertThat(killed).contains(leftoverA.pid());
            assertThat(leftoverA.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(ProcessLeaks.mentioning(socketA)).as("sandbox child of A and nothing else matched")
                    .extracting(LinuxProcess::pid).containsExactly(bystander.pid());
            assertThat(socketA).doesNotExist();
            assertThat(ShareSpec.pidFileOf(socketA)).doesNotExist();
            assertThat(leftoverB.isAlive()).isTrue();
            assertThat(bystander.isAlive()).isTrue();
        } finally {
            bystander.destroyForcibly().waitFor();
            fixture.launcher().killLeftovers(socketB);
            leftoverB.waitFor(5, TimeUnit.SECONDS);
        }
        assertThat(socketB).doesNotExist();
    }

    @Test
    void killLeftoversOfSeveralSocketsKillsEachSocketsOwnAndNothingElse() throws Exception {
        Path socketA = run.resolve("a.sock");
        Path socketB = run.resolve("b.sock");
        Path socketC = run.resolve("c.sock");
        Process leftoverA = startBare(socketA);
        Process leftoverB = startBare(socketB);
        Process leftoverC = startBare(socketC);
        try {
            awaitListening(socketA);
            awaitListening(socketB);
            awaitListening(socketC);

            Map<Path, List<Long>> killed = fixture.launcher().killLeftovers(List.of(socketA, socketB));

            assertThat(killed).containsOnlyKeys(socketA, socketB);
            assertThat(killed.get(socketA)).contains(leftoverA.pid()).doesNotContain(leftoverB.pid());
            assertThat(killed.get(socketB)).contains(leftoverB.pid()).doesNotContain(leftoverA.pid());
            assertThat(leftoverA.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(leftoverB.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(ProcessLeaks.mentioning(socketA)).isEmpty();
            assertThat(ProcessLeaks.mentioning(socketB)).isEmpty();
            assertThat(socketA).doesNotExist();
            assertThat(socketB).doesNotExist();
            assertThat(leftoverC.isAlive()).as("a virtiofsd on a socket not asked for").isTrue();
            assertThat(socketC).exists();
        } finally {
            fixture.launcher().killLeftovers(List.of(socketA, socketB, socketC));
            leftoverC.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void killLeftoversEscalatesToSigkillWhenSigtermIsNotActedOn() throws Exception {
        Path socket = run.resolve("stuck.sock");
        Process leftover = startBare(socket);
        try {
            awaitListening(socket);
            // stopped processes cannot act on SIGTERM: parent and sandboxed child
            for (LinuxProcess serving : ProcessLeaks.mentioning(socket)) {
                new ProcessBuilder("kill", "-STOP", Long.toString(serving.pid())).start().waitFor();
            }

            assertThat(fixture.launcher().killLeftovers(socket)).contains(leftover.pid());

            assertThat(leftover.waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(leftover.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
            assertThat(ProcessLeaks.mentioning(socket)).isEmpty();
            assertThat(socket).doesNotExist();
        } finally {
            for (LinuxProcess serving : ProcessLeaks.mentioning(socket)) {
                ProcessHandle.of(serving.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
            leftover.destroyForcibly().waitFor();
        }
    }

    /**
     * A killed virtiofsd's leader thread may be a zombie (no command line, no descriptors in /proc) while its other
     * threads still exit holding the listening socket: the kill is done only once nothing listens on the path, or a
     * start there right after is refused. Played by a python3 script named virtiofsd whose main thread ends on
     * SIGTERM (pthread_exit) while another thread keeps the socket for a second.
     */
    @Test
    void killLeftoversWaitsUntilTheSocketNoLongerListensWhenTheLeaderIsAZombie(@TempDir Path scripts) throws Exception {
        Path socket = run.resolve("lingering.sock");
        Path script = Files.writeString(scripts.resolve("virtiofsd"), """
                import ctypes, os, signal, socket, sys, threading, time
                s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1].split('=', 1)[1]); s.listen()
                terminated = threading.Event()
                def hold():
                    terminated.wait(); time.sleep(1.0); os._exit(0)
                threading.Thread(target=hold).start()
                def on_term(*_):
                    terminated.set(); ctypes.CDLL(None).pthread_exit(None)
                signal.signal(signal.SIGTERM, on_term)
                print('ready', flush=True)
                while True: time.sleep(60)
                """);
        Process leftover = new ProcessBuilder("/usr/bin/python3", script.toString(), "--socket-path=" + socket).start();
        try {
            assertThat(leftover.inputReader().readLine()).isEqualTo("ready");
            assertThat(UnixSocketTable.listeningInodes(socket)).isNotEmpty();

            assertThat(fixture.launcher().killLeftovers(socket)).containsExactly(leftover.pid());

            assertThat(UnixSocketTable.listeningInodes(socket)).as("nothing listens on the path any more").isEmpty();
            assertThat(socket).doesNotExist();
            assertThat(leftover.waitFor(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            leftover.destroyForcibly().waitFor();
        }
    }

    @Test
    void virtiofsdDiesWithTheDaemonWhenAskedTo() throws Exception {
        Process daemon = startDaemonStandIn(true);
        long virtiofsd = readPid(daemon);
        assertThat(LinuxProcess.read(virtiofsd)).isPresent();

        daemon.destroyForcibly().waitFor();

        awaitGone(virtiofsd, "virtiofsd " + virtiofsd + " to be gone after the daemon was killed");
        Eventually.until(Duration.ofSeconds(5), () -> ProcessLeaks.mentioning(run).isEmpty(), "no process to mention " + run,
                () -> ProcessLeaks.mentioning(run).toString());
        fixture.launcher().killLeftovers(run.resolve("durable.sock")); // the stale socket and pid file
    }

    @Test
    void withoutTheParentDeathSignalVirtiofsdOutlivesTheDaemonAndIsAdoptedByTheNextOne() throws Exception {
        Process daemon = startDaemonStandIn(false);
        long virtiofsd = readPid(daemon);

        daemon.destroyForcibly().waitFor();
        // the daemon was reaped: a parent-death signal, had there been one, would be pending or done by now
        assertThat(ProcessStatus.survives(virtiofsd)).as("still running").isTrue();

        ShareSpec spec = ShareSpec.inRunDir("sb-standin", ShareKind.DURABLE, shared, run, ShareOptions.DEFAULT.withDieWithDaemon(false));
        VirtiofsdProcess adopted = fixture.launcher().adoptFromPidFile(spec);
        assertThat(adopted.pid()).isEqualTo(virtiofsd);
        try (VhostUserFrontend frontend = VhostUserFrontend.connect(spec.socketPath())) {
            assertThat(frontend.getFeatures()).isNotZero();
            assertThat(adopted.stop().reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
        }
        awaitGone(virtiofsd, "the adopted virtiofsd " + virtiofsd + " to be gone after its stop");
        assertThat(ProcessLeaks.mentioning(run)).isEmpty();
        assertThat(spec.socketPath()).doesNotExist();
    }

    private Process startBare(Path socket) throws IOException {
        return new ProcessBuilder(TestVirtiofsd.binaryPath().toString(), "--socket-path=" + socket, "--shared-dir=" + shared,
                "--sandbox=namespace")
                .redirectErrorStream(true).redirectOutput(run.resolve(socket.getFileName() + ".log").toFile()).start();
    }

    private static void awaitListening(Path socket) {
        Eventually.until(Duration.ofSeconds(5), () -> !UnixSocketTable.listeningInodes(socket).isEmpty(), socket + " to listen");
    }

    private Process startDaemonStandIn(boolean dieWithDaemon) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String classpath = String.join(File.pathSeparator,
                codeSource(VirtiofsdProcess.class), codeSource(ChildLauncher.class), codeSource(DaemonStandIn.class));
        return new ProcessBuilder(java, "-cp", classpath, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                DaemonStandIn.class.getName(), TestVirtiofsd.binaryPath().toString(), shared.toString(), run.toString(),
                Boolean.toString(dieWithDaemon))
                .redirectError(run.resolve("standin.err").toFile())
                .start();
    }

    private static String codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private long readPid(Process daemon) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(daemon.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("stand-in output; stderr: %s", Files.readString(run.resolve("standin.err"))).startsWith("PID ");
        return Long.parseLong(line.substring(4).strip());
    }

    private static void awaitGone(long pid, String what) {
        Eventually.until(Duration.ofSeconds(5), () -> LinuxProcess.read(pid).filter(p -> !p.isZombie()).isEmpty(), what);
    }
}
