package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvApiException;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.chv.VmState;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.fixtures.guest.agent.AgentClient;
import dev.ateom.fixtures.guest.agent.AgentConnection;
import dev.ateom.fixtures.guest.agent.AgentResponse;
import dev.ateom.fixtures.guest.agent.ConnectStream;
import dev.ateom.fixtures.guest.agent.ProcessOutput;
import dev.ateom.fixtures.wait.Eventually;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Suspend and resume of a real guest through the CHV stand-in's REST API with the {@code qemu} backend, the way the
 * daemon does it: boot, pause, snapshot, shutdown; change the identity while saved; fresh virtiofsd on new sockets;
 * rewrite {@code config.json}; restore, resume; the probe's held descriptor reads the new identity, and the guest
 * agent, reached through the stand-in's stream port, still has its files and processes and takes /init's clock.
 */
@Tag("guest")
class QemuStandInRestoreTest {
    private static final System.Logger LOG = System.getLogger(QemuStandInRestoreTest.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long AGENT_PORT = 49983;
    /**
     * How long the stand-in waits for a vhost-user back-end. Its shares listen before each call (ShareDaemon waits for
     * that), so only the restore meant to fail on a dead socket waits it out, and a longer wait would assert nothing more.
     */
    private static final Duration VHOST_USER_TIMEOUT = Duration.ofSeconds(1);
    private static GuestImage image;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildImage() {
        image = GuestImage.ensureBuilt();
    }

    @Test
    void restoredGuestSeesItsNewIdentityThroughTheHeldDescriptor() throws Exception {
        Path snapshot = Files.createDirectories(dir.resolve("snap"));
        try (var sandbox = new SandboxDirs(dir, image, "A")) {
            // ---- boot generation 1
            sandbox.startShares(1);
            Path vsock1 = dir.resolve("vsock-1.sock");
            long bootMs, pauseMs, snapshotMs, restoreMs, resumeMs;
            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm1", VHOST_USER_TIMEOUT)) {
                ChvClient chv = vmm.client();
                chv.create(config(sandbox, 1, vsock1));
                Instant t0 = Instant.now();
                chv.boot();
                assertThatThrownBy(() -> new ProbeClient(vsock1, 1024, Duration.ofSeconds(1)).ping())
                        .as("refused until the guest's probe listens (a TCG boot takes seconds)").hasMessageContaining("refused");
                var probe = new ProbeClient(vsock1);
                probe.awaitReady(Duration.ofSeconds(90));
                bootMs = Duration.between(t0, Instant.now()).toMillis();
                assertThat(probe.whoami().text()).isEqualTo("A");
                assertThat(probe.cat(GuestImage.FIXTURE_FILE).text()).isEqualTo(GuestImage.FIXTURE_FILE_CONTENT);
                probe.write("/data/keep/before.txt", "written before the suspend");
                leaveAgentStateInTheGuest(vsock1);

                pauseMs = timed(chv::pause);
                assertThat(chv.info().state()).isEqualTo(VmState.Paused);
                snapshotMs = timed(() -> chv.snapshot(snapshot));
                assertThat(snapshot.resolve("config.json")).exists();
                assertThat(snapshot.resolve("state.json")).exists();
                assertThat(Files.size(snapshot.resolve("memory-ranges"))).as("as big as guest memory, like CHV's").isEqualTo(256L << 20);
                // a snapshot leaves the VM paused and resumable (the daemon's rollback of a failed suspend)
                chv.resume();
                assertThat(probe.ping()).isEqualTo("pong");
                assertThatThrownBy(() -> new ProbeClient(vsock1, 4444, Duration.ofSeconds(5)).ping())
                        .as("a port nothing listens on").hasMessageContaining("refused");
                chv.pause();
                chv.shutdown();
                chv.shutdownVmm();
            }
            assertThat(vsock1).as("vsock socket removed at vm.shutdown").doesNotExist();

            // ---- while saved: the identity changes
            sandbox.replaceIdentity("B");
            Instant savedUntil = Instant.now();

            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm2", VHOST_USER_TIMEOUT)) {
                ChvClient chv = vmm.client();
                // ---- a rewrite that leaves ateDurable on its old (dead) socket fails like CHV
                sandbox.startShares(2);
                rewrite(snapshot, sandbox, 2, dir.resolve("vsock-2.sock"), Map.of("ateDurable", 1));
                RawApiCall failed = RawApiCall.put(vmm.launch().apiSocket(), "vm.restore",
                        "{\"source_url\":\"file://" + snapshot + "\"}");
                assertThat(failed.status()).isEqualTo(500);
                assertThat(JSON.readValue(failed.body(), String[].class))
                        .startsWith("Error from API", "The VM could not be restored")
                        .endsWith("Cannot create virtio-fs device", "Timed out waiting for vhost-user connection");
                assertThatThrownBy(chv::info).isInstanceOfSatisfying(ChvApiException.class, e -> assertThat(e.status()).isEqualTo(404));

                // ---- the right rewrite, fresh virtiofsd (those of the failed attempt went with its QEMU)
                sandbox.startShares(3);
                Path vsock3 = dir.resolve("vsock-3.sock");
                rewrite(snapshot, sandbox, 3, vsock3, Map.of());
                restoreMs = timed(() -> chv.restore(RestoreConfig.fromDirectory(snapshot, MemoryRestoreMode.Copy)));
                assertThat(chv.info().state()).isEqualTo(VmState.Paused);
                resumeMs = timed(chv::resume);

                var probe = new ProbeClient(vsock3);
                // The guest may serve the held file from its page cache until its FUSE attributes expire (virtiofsd
                // --cache auto: 1 s of *guest* time, and guest time stood still while saved): poll, and report how long.
                Instant resumed = Instant.now();
                String firstRead = probe.whoami().text();
                String firstByPath = probe.cat("/run/ate/identity/name").text();
                Eventually.until(Duration.ofSeconds(10), () -> probe.whoami().text().equals("B"), "the held descriptor to read B after restore",
                        () -> "it reads " + probe.whoami().text());
                long heldSeesNewMs = Duration.between(resumed, Instant.now()).toMillis();
                assertThat(probe.cat("/run/ate/identity/name").text()).isEqualTo("B");
                assertThat(probe.cat("/data/keep/before.txt").text()).isEqualTo("written before the suspend");
                Duration behind = Duration.between(probe.time(), Instant.now());
                assertThat(behind).as("guest clock is behind by the time spent saved")
                        .isGreaterThan(Duration.between(savedUntil, Instant.now()).minusMillis(500));
                probe.setTime(Instant.now());
                assertThat(Duration.between(probe.time(), Instant.now()).abs()).isLessThan(Duration.ofSeconds(2));
                agentStateSurvivedTheRestore(vsock3);
                LOG.log(System.Logger.Level.INFO, "TIMING qemu backend via REST: boot-to-probe {0} ms, pause {1} ms, snapshot {2} ms"
                                + " ({3} bytes), restore {4} ms, resume {5} ms; guest clock was {6} ms behind; first held-fd read after resume ''{7}''"
                                + " (by path ''{9}''), held fd read B after {8} ms",
                        bootMs, pauseMs, snapshotMs, Files.size(snapshot.resolve("memory-ranges")), restoreMs, resumeMs, behind.toMillis(),
                        firstRead, heldSeesNewMs, firstByPath);
                chv.shutdown();
                chv.shutdownVmm();
            }
        }
    }

    @Test
    void aRestoreThatLosesAHeldDurableFileFailsCleanlyAndCanBeRetried() throws Exception {
        Path snapshot = Files.createDirectories(dir.resolve("snap"));
        try (var sandbox = new SandboxDirs(dir, image, "A")) {
            sandbox.startShares(1);
            int handle;
            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm1", VHOST_USER_TIMEOUT)) {
                ChvClient chv = vmm.client();
                chv.create(config(sandbox, 1, dir.resolve("vsock-1.sock")));
                chv.boot();
                var probe = new ProbeClient(dir.resolve("vsock-1.sock"));
                probe.awaitReady(Duration.ofSeconds(90));
                probe.write("/data/held.txt", "first");
                handle = probe.open("/data/held.txt");
                chv.pause();
                chv.snapshot(snapshot);
                chv.shutdown();
                chv.shutdownVmm();
            }
            // the host loses a file the guest holds (ateDurable's virtiofsd runs with --migration-on-error abort)
            Files.delete(sandbox.durable.resolve("held.txt"));
            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm2", VHOST_USER_TIMEOUT)) {
                ChvClient chv = vmm.client();
                List<ShareDaemon> second = sandbox.startShares(2);
                rewrite(snapshot, sandbox, 2, dir.resolve("vsock-2.sock"), Map.of());
                RawApiCall failed = RawApiCall.put(vmm.launch().apiSocket(), "vm.restore", "{\"source_url\":\"file://" + snapshot + "\"}");
                assertThat(failed.status()).isEqualTo(500);
                assertThat(JSON.readValue(failed.body(), String[].class))
                        .startsWith("Error from API", "The VM could not be restored", "Cannot restore VM");
                LOG.log(System.Logger.Level.INFO, "restore with a lost held file answered {0}", failed.body());
                for (ShareDaemon share : second) {
                    assertThat(share.exitsWithin(Duration.ofSeconds(5))).as("virtiofsd %s left with the failed QEMU", share.tag()).isTrue();
                }
                assertThat(dir.resolve("vsock-2.sock")).as("no vsock socket after a failed restore").doesNotExist();

                // put the path back, fresh daemons, same snapshot: the retry works and the held fd reads the new file
                Files.writeString(sandbox.durable.resolve("held.txt"), "second");
                sandbox.startShares(3);
                rewrite(snapshot, sandbox, 3, dir.resolve("vsock-3.sock"), Map.of());
                chv.restore(new RestoreConfig("file://" + snapshot, null, MemoryRestoreMode.Copy, true, null));
                assertThat(chv.info().state()).isEqualTo(VmState.Running);
                var probe = new ProbeClient(dir.resolve("vsock-3.sock"));
                Eventually.until(Duration.ofSeconds(10), () -> probe.pread(handle).text().equals("second"),
                        "the held descriptor to read the new file", () -> "it reads " + probe.pread(handle).text());
                chv.shutdown();
                chv.shutdownVmm();
            }
        }
    }

    /** Through the stand-in's stream port: a file in the guest's memory (/tmp) and a process left running. */
    private static void leaveAgentStateInTheGuest(Path vsock) throws Exception {
        AgentClient agent = new AgentClient(AgentConnection.hybridVsock(vsock, AGENT_PORT));
        Eventually.until(Duration.ofSeconds(60), () -> answers(agent), "the guest agent to answer on vsock port " + AGENT_PORT);
        assertThat(agent.http("POST", "/files?path=/tmp/kept.txt", Map.of("Content-Type", "application/octet-stream"),
                "in guest memory".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);
        ObjectNode survivor = ProcessOutput.command("/bin/sh", "-c", "sleep 600");
        survivor.put("tag", "survivor");
        try (ConnectStream started = agent.stream("process.Process/Start", survivor, Map.of())) {
            assertThat(started.next().path("event").has("start")).isTrue();
        }
    }

    /** The restored guest's agent answers its first request, has its file and process, and takes /init's clock and env. */
    private static void agentStateSurvivedTheRestore(Path vsock) throws Exception {
        AgentClient agent = new AgentClient(AgentConnection.hybridVsock(vsock, AGENT_PORT));
        assertThat(agent.get("/health").status()).isEqualTo(204);
        assertThat(agent.get("/files?path=/tmp/kept.txt").text()).isEqualTo("in guest memory");
        assertThat(agent.unary("process.Process/List", JSON.createObjectNode()).path("processes").findValuesAsText("tag"))
                .as("a process started before the snapshot runs on").contains("survivor");
        AgentResponse init = agent.http("POST", "/init", Map.of(), JSON.writeValueAsBytes(Map.of(
                "timestamp", Instant.now().plus(Duration.ofHours(2)).toString(), "envVars", Map.of("AFTER", "restore"))));
        assertThat(init.status()).isEqualTo(204);
        String[] lines = ProcessOutput.read(agent.stream("process.Process/Start",
                ProcessOutput.command("/bin/sh", "-c", "echo $AFTER; date +%s"), Map.of())).stdout().split("\n");
        assertThat(lines[0]).isEqualTo("restore");
        assertThat(Math.abs(Long.parseLong(lines[1]) - Instant.now().plus(Duration.ofHours(2)).getEpochSecond()))
                .as("/init's timestamp set the guest's clock").isLessThanOrEqualTo(5);
    }

    private static boolean answers(AgentClient agent) {
        try {
            return agent.get("/health").status() == 204;
        } catch (IOException e) {
            return false;
        }
    }

    private static VmConfig config(SandboxDirs sandbox, int generation, Path vsock) {
        return sandbox.vmConfig(generation, vsock, "");
    }

    /** Points config.json at generation {@code generation}'s sockets, except the tags in {@code stale} (left on theirs). */
    private static void rewrite(Path snapshot, SandboxDirs sandbox, int generation, Path vsock, Map<String, Integer> stale) throws Exception {
        sandbox.rewrite(snapshot.resolve("config.json"), generation, vsock, stale);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static long timed(Call call) throws Exception {
        Instant t0 = Instant.now();
        call.run();
        return Duration.between(t0, Instant.now()).toMillis();
    }
}
