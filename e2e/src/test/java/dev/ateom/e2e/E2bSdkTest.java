package dev.ateom.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.fixtures.guest.GuestTools;
import dev.ateom.fixtures.wait.Eventually;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official E2B SDK drives a real daemon ({@code bin/ateom daemon --e2b-listen}) whose sandboxes are real QEMU/TCG
 * guests (the CHV stand-in's qemu backend): one boot builds the template through {@code POST /v1/templates}, then
 * e2e/src/test/node/e2b-sdk-scenarios.mjs runs the scenarios, each a clone of that template.
 */
@Tag("guest")
class E2bSdkTest {
    private static final List<String> SCENARIOS = List.of(
            "create from a template",
            "commands.run answers with the sandbox identity",
            "a streaming command delivers stdout in order",
            "files are written, read, listed and removed",
            "a non-zero exit raises CommandExitError",
            "setTimeout moves the deadline",
            "Sandbox.list filters by metadata",
            "pause, then connect resumes with the file still there",
            "a killed sandbox answers NotFoundError",
            "timeout expiry kills, and with onTimeout pause pauses");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void theSdksScenariosPassAgainstRealGuests() throws Exception {
        GuestImage guest = GuestImage.ensureBuilt();
        Path standIn = dir.resolve("cloud-hypervisor");
        Files.writeString(standIn, "#!/bin/sh\nATEOM_STANDIN_BACKEND=qemu exec " + E2ePaths.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(standIn, PosixFilePermissions.fromString("rwxr-xr-x")); // run by a jailed VMM's own uid
        int e2bPort;
        try (ServerSocket free = new ServerSocket(0)) {
            e2bPort = free.getLocalPort();
        }
        Path log = dir.resolve("daemon.log");
        Path portFile = dir.resolve("port");
        Files.writeString(dir.resolve("empty.yaml"), "");
        ProcessBuilder start = new ProcessBuilder(E2ePaths.ateomCommand().toString(), "daemon", "--port", "0",
                "--port-file", portFile.toString(), "--state-dir", dir.resolve("state").toString(), "--run-dir", dir.resolve("run").toString(),
                "--config", dir.resolve("empty.yaml").toString(), "--cloud-hypervisor", standIn.toString(),
                "--virtiofsd", E2ePaths.virtiofsd().toString(), "--image-roots", guest.vmlinux().getParent().toRealPath().toString(),
                "--vmm-pool", "0", "--e2b-listen", "127.0.0.1:" + e2bPort)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        start.environment().keySet().removeIf(name -> name.startsWith("ATEOM_"));
        Process daemon = start.start();
        try {
            Eventually.until(Duration.ofSeconds(60), () -> Files.exists(portFile) && Files.readString(portFile).endsWith("\n"),
                    "the daemon to listen", () -> Files.readString(log));
            String daemonUrl = "http://127.0.0.1:" + Files.readString(portFile).strip();
            String token = Files.readString(dir.resolve("state/api-token")).strip();

            HttpResponse<String> built = post(daemonUrl + "/v1/templates", token, templateRequest(guest).toString());
            assertThat(built.statusCode()).as("template build: %s%n%s", built.body(), tail(log)).isEqualTo(201);

            Path script = E2ePaths.repoRoot().resolve("e2e/src/test/node/e2b-sdk-scenarios.mjs");
            ProcessBuilder run = new ProcessBuilder(GuestTools.node().toString(), script.toString()).redirectErrorStream(true);
            String e2bUrl = "http://127.0.0.1:" + e2bPort;
            run.environment().putAll(Map.of("ATEOM_NODE_MODULES", GuestTools.nodeModules().toString(), "E2B_API_URL", e2bUrl,
                    "E2B_API_KEY", token, "E2B_SANDBOX_URL", e2bUrl, "TEMPLATE", "e2e-guest"));
            Process node = run.start();
            String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(node.waitFor(10, TimeUnit.MINUTES)).as("the scenarios finish: %s", output).isTrue();
            assertThat(output.lines().filter(line -> line.startsWith("ok ")).map(line -> line.substring(3)))
                    .as("node said:%n%s%ndaemon log tail:%n%s", output, tail(log)).containsExactlyElementsOf(SCENARIOS);
            assertThat(node.exitValue()).isZero();
            // nothing of the scenarios is left running
            HttpResponse<String> left = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(daemonUrl + "/v1/sandboxes"))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(JSON.readTree(left.body()).path("items")).isEmpty();
        } finally {
            daemon.destroy(); // SIGTERM: a clean stop (children die with the daemon)
            if (!daemon.waitFor(120, TimeUnit.SECONDS)) daemon.destroyForcibly();
        }
    }

    /** The fixture guest, its identity in the system-info share, ready once its probe answers; the template waits for the agent. */
    private static ObjectNode templateRequest(GuestImage guest) {
        ObjectNode spec = JSON.createObjectNode();
        spec.putObject("identity").put("name", "e2e-guest").put("namespace", "templates");
        spec.put("vcpus", 1).put("memoryMib", 256).put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("rootfs", guest.rootfs().toString()).put("cmdline", GuestCmdline.BASE);
        spec.putArray("durableDirs").add("data");
        spec.putObject("systemInfo").putArray("volumes").addObject().put("name", "identity").putArray("sources").addObject()
                .putObject("actorMetadata").putArray("items").addObject().put("field", "name").put("path", "name");
        spec.putObject("readiness").put("type", "probe").put("port", 1024).put("timeoutSeconds", 300);
        ObjectNode request = JSON.createObjectNode().put("name", "e2e-guest");
        request.set("spec", spec);
        request.putObject("health").put("timeoutSeconds", 300);
        return request;
    }

    private static HttpResponse<String> post(String url, String token, String body) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").timeout(Duration.ofMinutes(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}
