package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.chv.qemu.QemuMachine;
import dev.ateom.fixtures.chv.qemu.QemuProcess;
import dev.ateom.fixtures.chv.qemu.QmpException;
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
 * The fixture guest under QEMU/TCG with its three real virtiofsd shares and real virtio-vsock
 * (vhost-user-vsock-pci + vhost-device-vsock), driven directly, without the stand-in: the probe and the guest agent
 * answer over it.
 */
@Tag("guest")
class QemuGuestTest {
    private static final System.Logger LOG = System.getLogger(QemuGuestTest.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static GuestImage image;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildImage() {
        image = GuestImage.ensureBuilt();
    }

    @Test
    void bootsWithThreeSharesAndAnswersOverRealVsockWhichQemuCannotSave() throws Exception {
        try (var sandbox = new SandboxDirs(dir, image, "A");
             var vsock = VsockDaemon.start(dir.resolve("vsock-backend.sock"), dir.resolve("vsock.sock"), 3)) {
            List<ShareDaemon> shares = sandbox.startShares(1);
            QemuMachine machine = sandbox.vhostVsockMachine(shares, vsock);
            Instant start = Instant.now();
            try (var qemu = QemuProcess.start(GuestTools.qemu(), machine, dir.resolve("qemu.log"), Duration.ofSeconds(30))) {
                var probe = new ProbeClient(vsock.udsPath());
                probe.awaitReady(Duration.ofSeconds(90));
                LOG.log(System.Logger.Level.INFO, "TIMING boot to probe answering over vhost-user vsock: {0} ms",
                        Duration.between(start, Instant.now()).toMillis());

                assertThat(probe.ping()).isEqualTo("pong");
                assertThatThrownBy(() -> new ProbeClient(vsock.udsPath(), 4444, Duration.ofSeconds(5)).ping())
                        .as("vhost-device-vsock closes a CONNECT to a port nothing listens on, like CHV").hasMessageContaining("refused");
                assertThat(probe.whoami().text()).isEqualTo("A");
                assertThat(probe.cat(GuestImage.FIXTURE_FILE).text()).isEqualTo(GuestImage.FIXTURE_FILE_CONTENT);
                assertThat(probe.ls("/run/ate/identity")).containsExactly("..data", "name");
                probe.write("/data/notes/hello.txt", "hello from the guest");
                assertThat(sandbox.durable.resolve("notes/hello.txt")).hasContent("hello from the guest");
                assertThatThrownBy(() -> probe.write("/run/ate/evil", "x")).hasMessageContaining("EPERM");
                assertThat(probe.cat("/run/ate/identity/missing").errno()).isEqualTo("ENOENT");

                Instant later = Instant.now().plus(Duration.ofHours(1));
                probe.setTime(later);
                assertThat(Duration.between(later, probe.time()).abs()).isLessThan(Duration.ofSeconds(5));

                var agent = new AgentClient(AgentConnection.hybridVsock(vsock.udsPath(), 49983));
                Eventually.until(Duration.ofSeconds(60), () -> answers(agent), "the agent to answer on vsock port 49983");
                agentAnswersTheSdksCalls(agent, sandbox);

                qemu.stop();
                assertThatThrownBy(() -> qemu.saveTo(dir.resolve("state"), Duration.ofSeconds(30)))
                        .isInstanceOf(QmpException.class)
                        .hasMessageContaining("non-migratable device")
                        .hasMessageContaining("vhost-user-vsock");
            }
            for (ShareDaemon share : shares) {
                assertThat(share.exitsWithin(Duration.ofSeconds(5))).as("virtiofsd %s exits with its front-end", share.tag()).isTrue();
            }
        }
    }

    /** The guest agent's answers to what the E2B SDK sends, over the same real vsock (port 49983). */
    private static void agentAnswersTheSdksCalls(AgentClient agent, SandboxDirs sandbox) throws Exception {
        ProcessOutput hello = run(agent, ProcessOutput.command("/bin/bash", "-l", "-c", "echo hello; cat /run/ate/identity/name"));
        assertThat(hello.stdout()).as("the SDK's form of a command, as root").isEqualTo("hello\nA");
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

    private static ProcessOutput run(AgentClient agent, ObjectNode request) throws IOException {
        return ProcessOutput.read(agent.stream("process.Process/Start", request, Map.of()));
    }

    private static boolean answers(AgentClient agent) {
        try {
            return agent.get("/health").status() == 204;
        } catch (IOException e) {
            return false;
        }
    }
}
