package dev.ateom.e2b;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.fixtures.guest.agent.AgentClient;
import dev.ateom.fixtures.guest.agent.AgentConnection;
import dev.ateom.fixtures.guest.agent.HostAgent;
import dev.ateom.fixtures.guest.agent.ProcessOutput;
import dev.ateom.fixtures.wait.Eventually;
import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfigLoader;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.NoneBackendSpec;
import dev.ateom.microvm.sandbox.TestTools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The E2B API of one daemon (stand-in {@code none} backend), with the guest agent run on the host behind the
 * stand-in's vsock (every VM's port 49983 is forwarded to it), so create's {@code /init} and the envd proxy talk to a
 * real envd-compatible agent. Children outlive the daemon here, so the restart test finds its sandbox running.
 * The secure sandbox's test runs last: its token stays set in the one shared agent.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class E2bApiTest {
    @TempDir static Path dir;
    static HostAgent agent;
    static Daemon daemon;
    static Map<ConfigOption, String> flags;
    static String token;
    static int e2bPort;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        agent = HostAgent.start(Files.createDirectories(dir.resolve("agent")));
        Path standIn = dir.resolve("chv-standin");
        Files.writeString(standIn, "#!/bin/sh\nATEOM_STANDIN_VSOCK_FORWARD=49983=127.0.0.1:" + agent.address().getPort()
                + " exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(standIn, PosixFilePermissions.fromString("rwx------"));
        try (ServerSocket free = new ServerSocket(0)) {
            e2bPort = free.getLocalPort();
        }
        flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.PORT, "0");
        flags.put(ConfigOption.STATE_DIR, dir.resolve("state").toString());
        flags.put(ConfigOption.RUN_DIR, dir.resolve("run").toString());
        flags.put(ConfigOption.CLOUD_HYPERVISOR, standIn.toString());
        flags.put(ConfigOption.VIRTIOFSD, TestTools.virtiofsd().toString());
        flags.put(ConfigOption.CONFIG, Files.writeString(dir.resolve("empty.yaml"), "").toString());
        flags.put(ConfigOption.IMAGE_ROOTS, Files.createDirectories(dir.resolve("image")).toString());
        flags.put(ConfigOption.CHILDREN_DIE_WITH_DAEMON, "false");
        flags.put(ConfigOption.VMM_POOL, "0");
        // the host-run agent listens on the host's loopback, which a jailed VMM (a network namespace of its own) cannot
        // reach: these tests are about the E2B layer; JailedSandboxTest and E2bSdkTest (real guests) run jailed
        flags.put(ConfigOption.JAIL, "off");
        flags.put(ConfigOption.E2B_LISTEN, "127.0.0.1:" + e2bPort);
        Path keys = Files.writeString(dir.resolve("e2b-keys"), "# test keys\ne2b_test_key_0123456789abcdef\n");
        flags.put(ConfigOption.E2B_KEYS_FILE, keys.toString());
        daemon = startDaemon();
        token = Files.readString(dir.resolve("state/api-token")).strip();

        ObjectNode template = ApiJson.mapper().createObjectNode().put("name", "base");
        template.putObject("health").put("timeoutSeconds", 30);
        template.set("spec", NoneBackendSpec.of(dir.resolve("image"), null, "base", "templates", "name"));
        HttpResponse<String> built = daemonApi("POST", "/v1/templates", template.toString());
        assertThat(built.statusCode()).as(built.body()).isEqualTo(201);
    }

    static Daemon startDaemon() {
        return Daemon.start(new DaemonConfigLoader(flags, Map.of()).load());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (daemon != null) {
                // children outlive this daemon: every sandbox goes, so no stand-in or virtiofsd is left behind
                for (JsonNode s : json(daemonApi("GET", "/v1/sandboxes", null)).path("items")) {
                    daemonApi("DELETE", "/v1/sandboxes/" + s.path("id").asText() + "?deleteSnapshots=true", null);
                }
                daemon.close();
            }
        } finally {
            if (agent != null) agent.close();
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Test
    @Order(1)
    void createInitsTheAgentAndEveryLookupAndListingShowsTheSandbox() throws Exception {
        HttpResponse<String> created = e2b("POST", "/v2/sandboxes",
                "{\"templateID\":\"base\",\"timeout\":300,\"metadata\":{\"team\":\"blue\"},\"envVars\":{\"GREETING\":\"hello\"}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode sandbox = json(created);
        String id = sandbox.path("sandboxID").asText();
        assertThat(sandbox.path("templateID").asText()).isEqualTo("base");
        assertThat(sandbox.path("envdVersion").asText()).isEqualTo("0.5.7");
        assertThat(sandbox.has("envdAccessToken")).isFalse();

        JsonNode info = json(e2b("GET", "/sandboxes/" + id, null));
        assertThat(info.path("state").asText()).isEqualTo("running");
        assertThat(info.path("metadata").path("team").asText()).isEqualTo("blue");
        assertThat(info.path("lifecycle").path("onTimeout").asText()).isEqualTo("kill");

        // the daemon's /init put the env vars into the agent, read back through the proxy
        HttpResponse<String> envs = envd(id, "GET", "/envs", null, Map.of());
        assertThat(envs.statusCode()).as(envs.body()).isEqualTo(200);
        assertThat(json(envs).path("GREETING").asText()).isEqualTo("hello");

        assertThat(ids(json(e2b("GET", "/v2/sandboxes?metadata=" + enc("team=blue"), null)))).contains(id);
        assertThat(ids(json(e2b("GET", "/v2/sandboxes?metadata=" + enc("team=red"), null)))).doesNotContain(id);
        assertThat(ids(json(e2b("GET", "/sandboxes", null)))).contains(id);
        JsonNode templates = json(e2b("GET", "/templates", null));
        assertThat(templates.findValuesAsText("templateID")).contains("base");

        assertThat(e2b("DELETE", "/sandboxes/" + id, null).statusCode()).isEqualTo(204);
        HttpResponse<String> gone = e2b("GET", "/sandboxes/" + id, null);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(json(gone).path("code").asInt()).isEqualTo(404);
        assertThat(e2b("DELETE", "/sandboxes/" + id, null).statusCode()).isEqualTo(404);
        assertThat(envd(id, "GET", "/envs", null, Map.of()).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(2)
    void pauseConnectResumeAndTheProxyOfAPausedSandbox() throws Exception {
        String id = create("{\"templateID\":\"base\",\"timeout\":300}");
        assertThat(e2b("POST", "/sandboxes/" + id + "/pause", null).statusCode()).isEqualTo(204);
        assertThat(e2b("POST", "/sandboxes/" + id + "/pause", null).statusCode()).isEqualTo(409);
        assertThat(json(e2b("GET", "/sandboxes/" + id, null)).path("state").asText()).isEqualTo("paused");
        assertThat(ids(json(e2b("GET", "/v2/sandboxes?state=paused", null)))).contains(id);
        assertThat(ids(json(e2b("GET", "/v2/sandboxes?state=running", null)))).doesNotContain(id);
        HttpResponse<String> paused = envd(id, "GET", "/health", null, Map.of());
        assertThat(paused.statusCode()).isEqualTo(502);
        assertThat(json(paused).path("message").asText()).contains("paused");

        HttpResponse<String> connected = e2b("POST", "/v2/sandboxes/" + id + "/connect", "{\"timeout\":120}");
        assertThat(connected.statusCode()).as(connected.body()).isEqualTo(201);
        assertThat(json(e2b("GET", "/sandboxes/" + id, null)).path("state").asText()).isEqualTo("running");
        assertThat(envd(id, "GET", "/health", null, Map.of()).statusCode()).isEqualTo(204);
        assertThat(e2b("POST", "/v2/sandboxes/" + id + "/connect", "{\"timeout\":120}").statusCode()).isEqualTo(200);
        assertThat(e2b("POST", "/sandboxes/" + id + "/resume", "{}").statusCode()).isEqualTo(409);

        assertThat(e2b("POST", "/sandboxes/" + id + "/pause", null).statusCode()).isEqualTo(204);
        HttpResponse<String> resumed = e2b("POST", "/sandboxes/" + id + "/resume", "{\"timeout\":60}");
        assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(201);
        assertThat(e2b("POST", "/sandboxes/" + id + "/timeout", "{\"timeout\":600}").statusCode()).isEqualTo(204);
        JsonNode info = json(e2b("GET", "/sandboxes/" + id, null));
        assertThat(Duration.between(Instant.parse(info.path("startedAt").asText()),
                Instant.parse(info.path("endAt").asText())).toSeconds()).isGreaterThanOrEqualTo(590);
        assertThat(e2b("POST", "/sandboxes/" + id + "/refreshes", "{\"duration\":5}").statusCode()).isEqualTo(204);
        assertThat(json(e2b("GET", "/sandboxes/" + id, null)).path("endAt").asText()).isEqualTo(info.path("endAt").asText());
        kill(id);
    }

    @Test
    @Order(3)
    void badKeysAndBadRequestsAreClearErrorsInE2bsShape() throws Exception {
        HttpResponse<String> noKey = send("GET", "/v2/sandboxes", null, Map.of());
        assertThat(noKey.statusCode()).isEqualTo(401);
        assertThat(json(noKey).path("code").asInt()).isEqualTo(401);
        assertThat(send("GET", "/v2/sandboxes", null, Map.of("X-API-Key", "e2b_wrong_key_0123456789abcdef")).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/v2/sandboxes", null, Map.of("X-API-Key", token)).statusCode()).isEqualTo(200);

        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\": \"base\","), "malformed JSON");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"colour\":\"red\"}"), "unknown field 'colour'");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"timeout\":10}"), "templateID is required");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"mcp\":{\"x\":{}}}"), "mcp");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"volumeMounts\":[{\"name\":\"v\",\"path\":\"/v\"}]}"), "volumeMounts");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"network\":{\"allowOut\":[\"example.com\"]}}"), "domain names");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"allow_internet_access\":true}"), "has no network");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"timeout\":\"soon\"}"), "timeout");
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"autoPauseMemory\":false}"), "autoPauseMemory");

        HttpResponse<String> unknownTemplate = e2b("POST", "/v2/sandboxes", "{\"templateID\":\"nope\"}");
        assertThat(unknownTemplate.statusCode()).isEqualTo(404);
        assertThat(json(unknownTemplate).path("message").asText()).contains("nope");
        // a sandbox of the daemon made through its own API is not one of E2B's
        ObjectNode own = NoneBackendSpec.of(dir.resolve("image"), "plain-1", "plain-1", "tests", "name");
        assertThat(daemonApi("POST", "/v1/sandboxes", own.toString()).statusCode()).isEqualTo(201);
        assertThat(e2b("GET", "/sandboxes/plain-1", null).statusCode()).isEqualTo(404);
        assertThat(e2b("DELETE", "/sandboxes/plain-1", null).statusCode()).isEqualTo(404);
        assertThat(envd("plain-1", "GET", "/health", null, Map.of()).statusCode()).isEqualTo(404);
        assertThat(daemonApi("DELETE", "/v1/sandboxes/plain-1", null).statusCode()).isEqualTo(204);
        assertThat(e2b("GET", "/sandboxes/none-such", null).statusCode()).isEqualTo(404);
        assertThat(e2b("POST", "/sandboxes/none-such/pause", null).statusCode()).isEqualTo(404);
        assertThat(e2b("GET", "/no/such/route", null).statusCode()).isEqualTo(404);
        // nothing a refused create started is left
        assertThat(json(daemonApi("GET", "/v1/sandboxes", null)).path("items")).isEmpty();
    }

    @Test
    @Order(4)
    void theListingPagesWithNextToken() throws Exception {
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) made.add(create("{\"templateID\":\"base\",\"timeout\":300,\"metadata\":{\"page\":\"yes\"}}"));
        HttpResponse<String> first = e2b("GET", "/v2/sandboxes?limit=2&metadata=" + enc("page=yes"), null);
        assertThat(ids(json(first))).hasSize(2);
        String next = first.headers().firstValue("x-next-token").orElseThrow();
        HttpResponse<String> second = e2b("GET", "/v2/sandboxes?limit=2&nextToken=" + next + "&metadata=" + enc("page=yes"), null);
        assertThat(ids(json(second))).hasSize(1);
        assertThat(second.headers().firstValue("x-next-token")).isEmpty();
        List<String> seen = new ArrayList<>(ids(json(first)));
        seen.addAll(ids(json(second)));
        assertThat(seen).containsExactlyInAnyOrderElementsOf(made);
        for (String id : made) kill(id);
    }

    @Test
    @Order(5)
    void aDeadlineKillsOrWithAutoPausePauses() throws Exception {
        String killed = create("{\"templateID\":\"base\",\"timeout\":1}");
        String paused = create("{\"templateID\":\"base\",\"timeout\":1,\"autoPause\":true}");
        Eventually.until(Duration.ofSeconds(60), () -> e2b("GET", "/sandboxes/" + killed, null).statusCode() == 404,
                "the sandbox to be killed at its deadline");
        Eventually.until(Duration.ofSeconds(60), () -> json(e2b("GET", "/sandboxes/" + paused, null)).path("state").asText().equals("paused"),
                "the autoPause sandbox to be paused at its deadline");
        assertThat(json(e2b("GET", "/sandboxes/" + paused, null)).path("lifecycle").path("onTimeout").asText()).isEqualTo("pause");
        kill(paused);
    }

    @Test
    @Order(6)
    void aDeadlineSurvivesADaemonRestart() throws Exception {
        String id = create("{\"templateID\":\"base\",\"timeout\":300}");
        assertThat(e2b("POST", "/sandboxes/" + id + "/timeout", "{\"timeout\":3}").statusCode()).isEqualTo(204);
        daemon.close();
        daemon = startDaemon();
        // adopted running (children outlive the daemon here), and still bound to the deadline written before the stop
        Eventually.until(Duration.ofSeconds(60), () -> e2b("GET", "/sandboxes/" + id, null).statusCode() == 404,
                "the deadline set before the restart to kill the sandbox after it");
    }

    @Test
    @Order(7)
    void twoHundredStreamsThatNeverReadDoNotHurtTheDaemon() throws Exception {
        String id = create("{\"templateID\":\"base\",\"timeout\":300}");
        Path big = dir.resolve("big.bin");
        Files.write(big, new byte[4 << 20]);
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket socket = new Socket("127.0.0.1", e2bPort);
                clients.add(socket);
                OutputStream out = socket.getOutputStream();
                out.write(("GET /files?path=" + big + " HTTP/1.1\r\nHost: x\r\nE2b-Sandbox-Id: " + id
                        + "\r\nE2b-Sandbox-Port: 49983\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            // while all of them hang on full buffers, the API, the proxy and the daemon's own API answer
            assertThat(e2b("GET", "/sandboxes/" + id, null).statusCode()).isEqualTo(200);
            HttpResponse<String> health = envd(id, "GET", "/health", null, Map.of());
            assertThat(health.statusCode()).as(health.body()).isEqualTo(204);
            assertThat(daemonApi("GET", "/v1/sandboxes/" + id, null).statusCode()).isEqualTo(200);
            // and one of them, read after all, gets the whole file
            InputStream in = clients.getFirst().getInputStream();
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200");
        } finally {
            for (Socket socket : clients) socket.close();
        }
        // every guest stream closes with its client: the agent's connections go back to what it had
        Eventually.until(Duration.ofSeconds(60), () -> agentSockets() < 20, "the proxy's guest streams to close",
                () -> agentSockets() + " sockets open in the agent");
        kill(id);
    }

    @Test
    @Order(8)
    void aServerStreamingRpcFlowsThroughTheProxyAsTheGuestWritesIt() throws Exception {
        String id = create("{\"templateID\":\"base\",\"timeout\":300}");
        AgentClient proxied = new AgentClient(AgentConnection.tcp(new InetSocketAddress("127.0.0.1", e2bPort), Duration.ofSeconds(30)))
                .withHeader("E2b-Sandbox-Id", id).withHeader("E2b-Sandbox-Port", "49983");
        ProcessOutput out = ProcessOutput.read(proxied.stream("process.Process/Start",
                ProcessOutput.command("/bin/sh", "-c", "echo one; sleep 0.3; echo two; exit 4"), Map.of()));
        assertThat(out.stdout()).isEqualTo("one\ntwo\n");
        assertThat(out.exitCode()).isEqualTo(4);
        assertThat(out.kinds()).startsWith("start").endsWith("end");
        assertThat(out.kinds().stream().filter("data"::equals).count()).as("%s", out.kinds()).isEqualTo(2);
        kill(id);
    }

    @Test
    @Order(9)
    void aTemplateWithSandboxesIsDeletedOnlyByForceAndNamesAreChecked() throws Exception {
        ObjectNode request = ApiJson.mapper().createObjectNode().put("name", "other");
        request.set("spec", NoneBackendSpec.of(dir.resolve("image"), null, "other", "templates", "name"));
        request.putObject("health").put("timeoutSeconds", 30);
        HttpResponse<String> built = daemonApi("POST", "/v1/templates", request.toString());
        assertThat(built.statusCode()).as(built.body()).isEqualTo(201);
        assertThat(daemonApi("POST", "/v1/templates", request.toString()).statusCode()).isEqualTo(409);
        HttpResponse<String> badName = daemonApi("POST", "/v1/templates", request.put("name", "Not_A_Name").toString());
        assertThat(badName.statusCode()).isEqualTo(400);
        assertThat(badName.body()).contains("\"name\"");

        String id = create("{\"templateID\":\"other\",\"timeout\":300}");
        assertThat(json(daemonApi("GET", "/v1/templates/other", null)).path("sandboxes").asInt()).isEqualTo(1);
        HttpResponse<String> refused = daemonApi("DELETE", "/v1/templates/other", null);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("template-in-use");
        assertThat(daemonApi("DELETE", "/v1/templates/other?force=true", null).statusCode()).isEqualTo(204);
        assertThat(daemonApi("GET", "/v1/templates/other", null).statusCode()).isEqualTo(404);
        assertThat(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"other\"}").statusCode()).isEqualTo(404);
        // its sandbox runs on without it
        assertThat(envd(id, "GET", "/health", null, Map.of()).statusCode()).isEqualTo(204);
        kill(id);
        assertThat(json(daemonApi("GET", "/v1/templates", null)).findValuesAsText("name")).containsExactly("base");
    }

    @Test
    @Order(10)
    void autoResumeWakesAPausedSandboxOnEnvdTrafficAndTheHostFormReachesIt() throws Exception {
        String id = create("{\"templateID\":\"base\",\"timeout\":300,\"autoPause\":true,\"autoResume\":{\"enabled\":true}}");
        assertThat(e2b("POST", "/sandboxes/" + id + "/pause", null).statusCode()).isEqualTo(204);
        assertThat(json(e2b("GET", "/sandboxes/" + id, null)).path("state").asText()).isEqualTo("paused");
        // a request in the <port>-<id>.<domain> form, as behind wildcard DNS: resumed first, then answered by its envd
        try (Socket socket = new Socket("127.0.0.1", e2bPort)) {
            socket.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: 49983-" + id + ".sandbox.example\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 204");
        }
        JsonNode info = json(e2b("GET", "/sandboxes/" + id, null));
        assertThat(info.path("state").asText()).isEqualTo("running");
        assertThat(info.path("lifecycle").path("autoResume").asBoolean()).isTrue();
        assertBad(e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"autoResume\":{\"enabled\":true}}"), "autoResume needs autoPause");
        kill(id);
    }

    @Test
    @Order(100)
    void aSecureSandboxsEnvdNeedsItsTokenAndItsInitIsTheDaemons() throws Exception {
        HttpResponse<String> created = e2b("POST", "/v2/sandboxes", "{\"templateID\":\"base\",\"timeout\":300,\"secure\":true}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = json(created).path("sandboxID").asText();
        String envdToken = json(created).path("envdAccessToken").asText();
        assertThat(envdToken).hasSizeGreaterThan(20);
        assertThat(envd(id, "GET", "/envs", null, Map.of()).statusCode()).isEqualTo(401);
        assertThat(envd(id, "GET", "/envs", null, Map.of("X-Access-Token", "wrong")).statusCode()).isEqualTo(401);
        assertThat(envd(id, "GET", "/envs", null, Map.of("X-Access-Token", envdToken)).statusCode()).isEqualTo(200);
        assertThat(envd(id, "GET", "/health", null, Map.of()).statusCode()).isEqualTo(204);
        assertThat(envd(id, "POST", "/init", "{}", Map.of("X-Access-Token", envdToken)).statusCode()).isEqualTo(403);
        kill(id);
    }

    // ------------------------------------------------------------------ helpers

    private static long agentSockets() throws IOException {
        try (var fds = Files.list(Path.of("/proc/" + agent.pid() + "/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            head.append((char) b);
        }
        return head.toString();
    }

    private static String create(String body) throws Exception {
        HttpResponse<String> created = e2b("POST", "/v2/sandboxes", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return json(created).path("sandboxID").asText();
    }

    private static void kill(String id) throws Exception {
        assertThat(e2b("DELETE", "/sandboxes/" + id, null).statusCode()).isEqualTo(204);
    }

    private static void assertBad(HttpResponse<String> res, String words) throws IOException {
        assertThat(res.statusCode()).as(res.body()).isEqualTo(400);
        assertThat(json(res).path("code").asInt()).isEqualTo(400);
        assertThat(json(res).path("message").asText()).contains(words);
    }

    private static List<String> ids(JsonNode items) {
        List<String> out = new ArrayList<>();
        items.forEach(item -> out.add(item.path("sandboxID").asText()));
        return out;
    }

    private static String enc(String text) { return URLEncoder.encode(text, StandardCharsets.UTF_8); }

    private static JsonNode json(HttpResponse<String> res) throws IOException { return ApiJson.mapper().readTree(res.body()); }

    static HttpResponse<String> e2b(String method, String path, String body) throws Exception {
        return send(method, path, body, Map.of("X-API-Key", "e2b_test_key_0123456789abcdef"));
    }

    static HttpResponse<String> envd(String id, String method, String path, String body, Map<String, String> headers) throws Exception {
        Map<String, String> all = new HashMap<>(headers);
        all.put("E2b-Sandbox-Id", id);
        all.put("E2b-Sandbox-Port", "49983");
        return send(method, path, body, all);
    }

    static HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + e2bPort + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) req.header("Content-Type", "application/json");
        headers.forEach(req::header);
        return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> daemonApi(String method, String path, String body) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + daemon.port() + path))
                .header("Authorization", "Bearer " + (token != null ? token : Files.readString(dir.resolve("state/api-token")).strip()))
                .timeout(Duration.ofSeconds(120))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) req.header("Content-Type", "application/json");
        return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }
}
