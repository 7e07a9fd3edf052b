package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.fixtures.chv.qemu.QemuMachine;
import dev.ateom.fixtures.chv.qemu.QemuProcess;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.fixtures.guest.GuestTools;
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
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture guest's agent in a real guest (QEMU/TCG), reached the way the daemon reaches it: a hybrid-vsock
 * {@code CONNECT 49983}. Once over real virtio-vsock (vhost-device-vsock), once through the CHV stand-in's
 * {@code qemu} backend across a snapshot and restore.
 */
@Tag("guest")
class AgentGuestTest {
    private static final System.Logger LOG = System.getLogger(AgentGuestTest.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long AGENT_PORT = 49983;
    private static GuestImage image;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildImage() {
        image = GuestImage.ensureBuilt();
    }

    @Test
    void theAgentRunsWhatTheSdkSendsOverRealVsock() throws Exception {
        try (var sandbox = new SandboxDirs(dir, image, "agent-guest");
             var vsock = VsockDaemon.start(dir.resolve("vsock-backend.sock"), dir.resolve("vsock.sock"), 3)) {
            List<ShareDaemon> shares = sandbox.startShares(1);
            var machine = new QemuMachine(image.vmlinux(), image.initramfs(), GuestCmdline.defaults().render(), 256L << 20, 1,
                    shares.stream().map(s -> new QemuMachine.FsDevice(s.tag(), s.socket())).toList(),
                    new QemuMachine.VhostUserVsock(vsock.backendSocket()), dir.resolve("serial.log"), dir.resolve("qmp.sock"), false, List.of(), null);
            Instant start = Instant.now();
            try (var qemu = QemuProcess.start(GuestTools.qemu(), machine, dir.resolve("qemu.log"), Duration.ofSeconds(30))) {
                AgentClient agent = new AgentClient(AgentConnection.hybridVsock(vsock.udsPath(), AGENT_PORT));
                awaitHealthy(agent);
                LOG.log(System.Logger.Level.INFO, "TIMING boot to agent answering over vhost-user vsock: {0} ms",
                        Duration.between(start, Instant.now()).toMillis());

                ProcessOutput hello = run(agent, ProcessOutput.command("/bin/bash", "-l", "-c", "echo hello; cat /run/ate/identity/name"));
                assertThat(hello.stdout()).as("the SDK's form of a command, as root").isEqualTo("hello\nagent-guest");
                assertThat(hello.exitCode()).isZero();

                ProcessOutput streamed = run(agent, ProcessOutput.command("/bin/sh", "-c", "echo one; sleep 1; echo two >&2; exit 4"));
                assertThat(streamed.kinds()).as("output is sent as it is written").containsExactly("start", "data", "data", "end");
                assertThat(streamed.stdout()).isEqualTo("one\n");
                assertThat(streamed.stderr()).isEqualTo("two\n");
                assertThat(streamed.exitCode()).isEqualTo(4);

                AgentClient asUser = agent.withHeader("Authorization", "Basic " + Base64.getEncoder().encodeToString("user:".getBytes(StandardCharsets.UTF_8)));
                assertThat(run(asUser, ProcessOutput.command("/bin/sh", "-c", "id -u; pwd; touch x && echo writable")).stdout())
                        .as("the unprivileged user, in its tmpfs home").isEqualTo("1000\n/home/user\nwritable\n");

                AgentResponse upload = agent.http("POST", "/files?path=/data/from-agent.txt", Map.of("Content-Type", "application/octet-stream"),
                        "through the agent".getBytes(StandardCharsets.UTF_8));
                assertThat(upload.status()).as(upload.text()).isEqualTo(200);
                assertThat(sandbox.durable.resolve("from-agent.txt")).as("in the durable share on the host").hasContent("through the agent");

                ObjectNode shell = ProcessOutput.command("/bin/bash", "-i", "-l");
                shell.putObject("pty").putObject("size").put("cols", 100).put("rows", 30);
                try (ConnectStream terminal = agent.stream("process.Process/Start", shell, Map.of())) {
                    long pid = terminal.next().path("event").path("start").path("pid").asLong();
                    ObjectNode input = JSON.createObjectNode();
                    input.putObject("process").put("pid", pid);
                    input.putObject("input").put("pty", Base64.getEncoder().encodeToString(
                            "stty size; echo sum=$((6*7)); exit\n".getBytes(StandardCharsets.UTF_8)));
                    agent.unary("process.Process/SendInput", input);
                    ProcessOutput session = ProcessOutput.read(terminal);
                    assertThat(session.pty()).contains("30 100").contains("sum=42");
                }
            }
        }
    }

    @Test
    void theAgentKeepsItsStateAcrossASnapshotAndRestoreThroughTheStandIn() throws Exception {
        Path snapshot = Files.createDirectories(dir.resolve("snap"));
        try (var sandbox = new SandboxDirs(dir, image, "A")) {
            sandbox.startShares(1);
            Path vsock1 = dir.resolve("vsock-1.sock");
            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm1", Duration.ofSeconds(5))) {
                ChvClient chv = vmm.client();
                chv.create(sandbox.vmConfig(1, vsock1, ""));
                chv.boot();
                AgentClient agent = new AgentClient(AgentConnection.hybridVsock(vsock1, AGENT_PORT));
                awaitHealthy(agent);
                assertThat(agent.http("POST", "/files?path=/tmp/kept.txt", Map.of("Content-Type", "application/octet-stream"),
                        "in guest memory".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);
                ObjectNode survivor = ProcessOutput.command("/bin/sh", "-c", "sleep 600");
                survivor.put("tag", "survivor");
                try (ConnectStream started = agent.stream("process.Process/Start", survivor, Map.of())) {
                    assertThat(started.next().path("event").has("start")).isTrue();
                }
                chv.pause();
                chv.snapshot(snapshot);
                chv.shutdown();
                chv.shutdownVmm();
            }
            try (ChvProcess vmm = QemuStandIn.start(dir, "vmm2", Duration.ofSeconds(5))) {
                ChvClient chv = vmm.client();
                sandbox.startShares(2);
                Path vsock2 = dir.resolve("vsock-2.sock");
                sandbox.rewrite(snapshot.resolve("config.json"), 2, vsock2, Map.of());
                chv.restore(new RestoreConfig("file://" + snapshot, null, MemoryRestoreMode.Copy, true, null));
                AgentClient agent = new AgentClient(AgentConnection.hybridVsock(vsock2, AGENT_PORT));
                AgentResponse health = agent.get("/health");
                assertThat(health.status()).as("the restored guest's agent answers at once").isEqualTo(204);
                assertThat(agent.get("/files?path=/tmp/kept.txt").text()).isEqualTo("in guest memory");
                assertThat(agent.unary("process.Process/List", JSON.createObjectNode()).path("processes").findValuesAsText("tag"))
                        .as("a process started before the snapshot runs on").contains("survivor");

                Instant hostNow = Instant.now();
                AgentResponse init = agent.http("POST", "/init", Map.of(), JSON.writeValueAsBytes(Map.of("timestamp", hostNow.toString(),
                        "envVars", Map.of("AFTER", "restore"))));
                assertThat(init.status()).isEqualTo(204);
                ProcessOutput after = run(agent, ProcessOutput.command("/bin/sh", "-c", "echo $AFTER; date +%s"));
                String[] lines = after.stdout().split("\n");
                assertThat(lines[0]).isEqualTo("restore");
                assertThat(Math.abs(Long.parseLong(lines[1]) - Instant.now().getEpochSecond()))
                        .as("/init set the restored guest's clock to the host's").isLessThanOrEqualTo(5);
                chv.shutdown();
                chv.shutdownVmm();
            }
        }
    }

    private static ProcessOutput run(AgentClient agent, ObjectNode request) throws IOException {
        return ProcessOutput.read(agent.stream("process.Process/Start", request, Map.of()));
    }

    private void awaitHealthy(AgentClient agent) {
        Eventually.until(Duration.ofSeconds(180), () -> {
            try {
                return agent.get("/health").status() == 204;
            } catch (IOException e) {
                return false;
            }
        }, "the guest agent to answer /health on vsock port " + AGENT_PORT, () -> {
            Path serial = dir.resolve("serial.log");
            return Files.exists(serial) ? "console:\n" + Files.readString(serial) : "no console log";
        });
    }
}
