package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.Main;
import dev.ateom.microvm.config.ConfigException;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.jail.LeftoverCgroups;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.timing.FailPoints;
import dev.ateom.network.TestNetwork;
import dev.ateom.network.os.NetNamespaces;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon's network wiring with the CHV stand-in's {@code none} backend (which checks TAP descriptors and net ids
 * like CHV): a networked sandbox holds a slot of its own while its VM runs and none otherwise, keeps its published
 * host port across suspend and resume, every clone gets its own slot, the egress policy can be replaced, failures
 * leave no slot behind, and a restarted daemon adopts the slots of running sandboxes and reclaims the rest. The
 * daemon's host is a namespace of the test's own ({@code --network-host-namespace}) with a random prefix; no
 * ready slots are kept, so every slot namespace that exists belongs to a sandbox.
 */
class NetworkedSandboxTest {
    @TempDir static Path dir;
    static TestNetwork network;
    static DaemonHarness daemon;

    @BeforeAll
    static void start() throws Exception {
        network = TestNetwork.create();
        daemon = harness(dir.resolve("a"), networkFlags(network, Map.of()));
    }

    /** Flags for a daemon whose host is {@code host}: every daemon needs a host of its own (it owns its prefix). */
    static Map<ConfigOption, String> networkFlags(TestNetwork host, Map<ConfigOption, String> extra) {
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.NETWORK, "true");
        flags.put(ConfigOption.NETWORK_PREFIX, host.prefix());
        flags.put(ConfigOption.NETWORK_HOST_NAMESPACE, host.prefix() + "-host");
        flags.put(ConfigOption.NETWORK_POOL, "100.72.0.0/24");
        flags.put(ConfigOption.NETWORK_POOL_READY, "0");
        flags.put(ConfigOption.NETWORK_REUSE_DELAY, "0");
        flags.put(ConfigOption.NETWORK_MAX_PORTS, "2");
        flags.putAll(extra);
        return flags;
    }

    @AfterEach
    void disarmAndDeleteAll() throws Exception {
        FailPoints.disarmAll();
        daemon.deleteAllSandboxesBut();
        assertThat(slotNamespaces()).as("slots of deleted sandboxes").isEmpty();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            daemon.close();
        } finally {
            network.close(); // fails when anything with the test's prefix is left
        }
        assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
    }

    @Test
    void aSlotWhileRunningTheSameHostPortAfterResumeAndASlotPerClone() throws Exception {
        ObjectNode spec = networked(daemon.spec("net-a", "net-a"));
        ((ObjectNode) spec.get("network")).putArray("ports").addObject().put("guest", 8080);
        JsonNode created = daemon.createOk(spec).body();
        assertThat(created.path("timingsMs").has("network")).as(created.toString()).isTrue();
        assertThat(created.path("timingsMs").has("vmAddNet")).isTrue();
        JsonNode net = created.path("sandbox").path("runtime").path("network");
        String slot = net.path("slot").asText();
        assertThat(slot).startsWith(network.prefix() + "-s");
        assertThat(net.path("guestAddress").asText()).isEqualTo("169.254.0.21");
        assertThat(net.path("slotAddress").asText()).startsWith("100.72.0.");
        int hostPort = net.path("ports").path(0).path("host").asInt();
        assertThat(net.path("ports").path(0).path("guest").asInt()).isEqualTo(8080);
        assertThat(hostPort).isPositive();
        assertThat(created.path("sandbox").path("spec").path("network").path("ports").path(0).path("host").asInt())
                .as("the picked port is recorded for the next resume").isEqualTo(hostPort);
        assertThat(slotNamespaces()).containsExactly(slot);

        var suspended = daemon.post("/v1/sandboxes/net-a/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        daemon.awaitTeardowns(); // the slot goes with the processes, after the answer
        assertThat(slotNamespaces()).as("a suspended sandbox holds no slot").isEmpty();
        String snapshot = suspended.body().path("snapshotId").asText();

        var resumed = daemon.post("/v1/sandboxes/net-a/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        JsonNode resumedNet = resumed.body().path("sandbox").path("runtime").path("network");
        assertThat(resumedNet.path("ports").path(0).path("host").asInt()).as("the same host port").isEqualTo(hostPort);
        assertThat(slotNamespaces()).containsExactly(resumedNet.path("slot").asText());

        List<String> cloneSlots = new ArrayList<>();
        for (String id : List.of("net-b", "net-c")) {
            JsonNode clone = daemon.createOk(cloneRequest(id, snapshot)).body().path("sandbox");
            assertThat(clone.path("spec").path("network").path("ports").path(0).path("guest").asInt()).isEqualTo(8080);
            cloneSlots.add(clone.path("runtime").path("network").path("slot").asText());
            assertThat(clone.path("runtime").path("network").path("ports").path(0).path("host").asInt())
                    .as("a clone publishes on a port of its own").isNotEqualTo(hostPort);
        }
        assertThat(cloneSlots).doesNotHaveDuplicates().doesNotContain(resumedNet.path("slot").asText());
        assertThat(slotNamespaces()).hasSize(3);
        assertThat(daemon.get("/v1/sandboxes/net-b").body().path("runtime").path("network").path("slot").asText())
                .isEqualTo(cloneSlots.getFirst());
    }

    @Test
    void theEgressPolicyIsReplacedWhileRunningAndWhileSuspended() throws Exception {
        daemon.createOk(networked(daemon.spec("net-e", "net-e")));
        var replaced = putEgress("net-e", "{\"allow\": [\"10.1.0.0/16\"], \"deny\": [\"198.51.100.0/24\"]}");
        assertThat(replaced.status()).as(replaced.body().toString()).isEqualTo(200);
        assertThat(replaced.body().path("spec").path("network").path("egress").path("allow").path(0).asText()).isEqualTo("10.1.0.0/16");
        assertThat(daemon.post("/v1/sandboxes/net-e/suspend", "{}").status()).isEqualTo(200);
        assertThat(putEgress("net-e", "{\"deny\": [\"203.0.113.0/24\"]}").status()).isEqualTo(200);
        var resumed = daemon.post("/v1/sandboxes/net-e/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        assertThat(resumed.body().path("sandbox").path("spec").path("network").path("egress").path("deny").path(0).asText())
                .isEqualTo("203.0.113.0/24");

        var bad = putEgress("net-e", "{\"deny\": [\"203.0.113.0/24\", \"300.1.1.1/8\"]}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body().path("errors").findValuesAsText("field")).containsExactly("egress.deny[1]");
        assertThat(putEgress("no-such", "{}").status()).isEqualTo(404);

        daemon.createOk(daemon.spec("net-none", "net-none"));
        var withoutNetwork = putEgress("net-none", "{}");
        assertThat(withoutNetwork.status()).isEqualTo(400);
        assertThat(withoutNetwork.body().path("errors").findValuesAsText("field")).containsExactly("network");
    }

    @Test
    void theCliShowsTheSlotAndItsPortsAndReplacesThePolicy() throws Exception {
        ObjectNode spec = networked(daemon.spec("net-cli", "net-cli"));
        ((ObjectNode) spec.get("network")).putArray("ports").addObject().put("guest", 8080);
        JsonNode net = daemon.createOk(spec).body().path("sandbox").path("runtime").path("network");

        String shown = cli("get", "net-cli");
        assertThat(shown).contains("network slot " + net.path("slot").asText(), "guest 169.254.0.21",
                "leaves as " + net.path("slotAddress").asText(), "127.0.0.1:" + net.path("ports").path(0).path("host").asInt(),
                "egress: allow -, deny 198.51.100.0/24");
        assertThat(cli("egress", "net-cli", "--allow", "10.1.0.0/16", "--deny", "203.0.113.0/24"))
                .contains("net-cli egress: allow 10.1.0.0/16, deny 203.0.113.0/24 (in force)");
        assertThat(daemon.get("/v1/sandboxes/net-cli").body().path("spec").path("network").path("egress").path("deny").path(0).asText())
                .isEqualTo("203.0.113.0/24");
    }

    /** Runs {@code ateom <command> --url <the daemon> --token-file <its token> <args>}; what it printed (exit 0 asserted). */
    private static String cli(String command, String... args) {
        List<String> argv = new ArrayList<>(List.of(command, "--url", "http://127.0.0.1:" + daemon.daemon.port(),
                "--token-file", daemon.stateDir().resolve("api-token").toString()));
        argv.addAll(List.of(args));
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = Main.commandLine().execute(argv.toArray(String[]::new));
        } finally {
            System.setOut(stdout);
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("ateom %s: %s", argv, printed).isZero();
        return printed;
    }

    @Test
    void aCloneKeepsTheNicItsSnapshotHad() throws Exception {
        daemon.createOk(daemon.spec("plain", "plain"));
        String plainSnapshot = daemon.post("/v1/sandboxes/plain/suspend", "{}").body().path("snapshotId").asText();
        var refused = daemon.post("/v1/sandboxes", networked(cloneRequest("plain-clone", plainSnapshot)));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().path("errors").findValuesAsText("field")).containsExactly("network");

        daemon.createOk(networked(daemon.spec("wired", "wired")));
        String wiredSnapshot = daemon.post("/v1/sandboxes/wired/suspend", "{}").body().path("snapshotId").asText();
        ObjectNode unplugged = cloneRequest("wired-clone", wiredSnapshot);
        unplugged.putObject("network").put("enabled", false);
        assertThat(daemon.post("/v1/sandboxes", unplugged).status()).isEqualTo(400);
        assertThat(daemon.get("/v1/sandboxes/wired-clone").status()).as("nothing created").isEqualTo(404);
    }

    /** The network steps are fail points too: the sandbox settles as for any other step and keeps no slot. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"create.network", "create.vmAddNet", "resume.network", "clone.network"})
    void aFailingNetworkStepLeavesNoSlot(String point) throws Exception {
        String snapshot = null;
        if (!point.startsWith("create")) {
            daemon.createOk(networked(daemon.spec("origin", "origin")));
            snapshot = daemon.post("/v1/sandboxes/origin/suspend", "{}").body().path("snapshotId").asText();
            daemon.awaitTeardowns(); // origin's slot goes after the suspend's answer; only the failed step's slot is looked for
        }
        FailPoints.failOnce(point);
        var failed = switch (point) {
            case "resume.network" -> daemon.post("/v1/sandboxes/origin/resume", "{}");
            case "clone.network" -> daemon.post("/v1/sandboxes", cloneRequest("failed", snapshot));
            default -> daemon.post("/v1/sandboxes", networked(daemon.spec("failed", "failed")));
        };
        assertThat(failed.status()).as(failed.body().toString()).isEqualTo(500);
        assertThat(failed.body().path("detail").asText()).contains("fail point " + point);
        assertThat(slotNamespaces()).as("no slot of a failed %s", point).isEmpty();
        String expected = point.startsWith("resume") ? "SUSPENDED" : "FAILED";
        assertThat(daemon.get("/v1/sandboxes/" + (point.startsWith("resume") ? "origin" : "failed")).body().path("state").asText())
                .isEqualTo(expected);
    }

    @Test
    void networkingOffIsA503ThatSaysHowToTurnItOn() throws Exception {
        try (DaemonHarness plain = harness(dir.resolve("off"), Map.of())) {
            var refused = plain.post("/v1/sandboxes", networked(plain.spec("wants-net", "wants-net")));
            assertThat(refused.status()).as(refused.body().toString()).isEqualTo(503);
            assertThat(refused.body().path("type").asText()).endsWith("/network-unavailable");
            assertThat(refused.body().path("detail").asText()).contains("--network=true");
            assertThat(plain.get("/v1/sandboxes/wants-net").status()).as("nothing created").isEqualTo(404);
            assertThat(plain.post("/v1/sandboxes", networkOff(plain.spec("no-net", "no-net"))).status()).isEqualTo(201);
            assertThat(plain.delete("/v1/sandboxes/no-net").status()).isEqualTo(204);
        }
    }

    @Test
    void aFullPoolIsA503AndLeavesNothingRunning() throws Exception {
        Path root = dir.resolve("tiny");
        try (TestNetwork own = TestNetwork.create();
             DaemonHarness tiny = harness(root, networkFlags(own, Map.of(ConfigOption.NETWORK_POOL, "100.72.1.0/29")))) {
            tiny.createOk(networked(tiny.spec("first", "first")));
            tiny.createOk(networked(tiny.spec("second", "second")));
            var refused = tiny.post("/v1/sandboxes", networked(tiny.spec("third", "third")));
            assertThat(refused.status()).as(refused.body().toString()).isEqualTo(503);
            assertThat(refused.body().path("detail").asText()).contains("no network slot is free");
            assertThat(tiny.get("/v1/sandboxes/third").body().has("runtime")).isFalse();
            assertThat(NetNamespaces.list(own.prefix() + "-s")).hasSize(2);
            for (String id : List.of("first", "second", "third")) assertThat(tiny.delete("/v1/sandboxes/" + id).status()).isEqualTo(204);
        }
    }

    @Test
    void aPoolOverlappingTheHostsRoutesStopsTheDaemonNamingTheOption() throws Exception {
        try (TestNetwork own = TestNetwork.create()) {
            own.addTestHost(1, "198.51.100.0/24");
            Map<ConfigOption, String> flags = networkFlags(own, Map.of(ConfigOption.NETWORK_POOL, "198.51.100.0/26"));
            assertThatThrownBy(() -> harness(dir.resolve("overlap"), flags)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("--network-pool");
            // the refused start had made its jails' cgroup parent (and a VMM pool that never filled): gone with it
            assertThat(LeftoverCgroups.of(dir.resolve("overlap/state"))).as("cgroups after the refused start").isEmpty();
        }
    }

    /**
     * A daemon whose VMs outlive it stops; a stray slot appears; the next daemon adopts the running sandbox with its
     * slot and removes the stray one.
     */
    @Test
    void aRestartedDaemonAdoptsTheSlotsOfRunningSandboxesAndReclaimsTheRest() throws Exception {
        Path root = dir.resolve("restart");
        try (TestNetwork own = TestNetwork.create()) {
            Map<ConfigOption, String> flags = networkFlags(own, Map.of(ConfigOption.CHILDREN_DIE_WITH_DAEMON, "false"));
            String slot;
            try (DaemonHarness first = harness(root, flags)) {
                slot = first.createOk(networked(first.spec("kept", "kept"))).body().path("sandbox").path("runtime").path("network")
                        .path("slot").asText();
            }
            String slots = own.prefix() + "-s";
            assertThat(NetNamespaces.list(slots)).as("the running VM's slot outlives the daemon").containsExactly(slot);
            NetNamespaces.create(own.prefix() + "-s63");
            try (DaemonHarness second = harness(root, flags)) {
                JsonNode kept = second.get("/v1/sandboxes/kept").body();
                assertThat(kept.path("state").asText()).isEqualTo("RUNNING");
                assertThat(kept.path("runtime").path("network").path("slot").asText()).isEqualTo(slot);
                assertThat(NetNamespaces.list(slots)).as("the stray slot is reclaimed").containsExactly(slot);
                assertThat(putEgressOn(second, "kept", "{\"deny\": [\"203.0.113.0/24\"]}").status())
                        .as("the adopted slot is in hand").isEqualTo(200);
                assertThat(second.delete("/v1/sandboxes/kept").status()).isEqualTo(204);
                assertThat(NetNamespaces.list(slots)).isEmpty();
            }
        }
    }

    private static DaemonHarness harness(Path root, Map<ConfigOption, String> flags) throws Exception {
        return new DaemonHarness(Files.createDirectories(root), flags);
    }

    private static ObjectNode networked(ObjectNode spec) {
        spec.putObject("network").putObject("egress").putArray("deny").add("198.51.100.0/24");
        return spec;
    }

    private static ObjectNode networkOff(ObjectNode spec) {
        spec.putObject("network").put("enabled", false);
        return spec;
    }

    private static ObjectNode cloneRequest(String id, String snapshot) {
        ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", id);
        clone.putObject("identity").put("name", id).put("namespace", "tests");
        return clone;
    }

    private static DaemonHarness.Response putEgress(String id, String body) throws Exception {
        return putEgressOn(daemon, id, body);
    }

    private static DaemonHarness.Response putEgressOn(DaemonHarness harness, String id, String body) throws Exception {
        return harness.send(HttpRequest.newBuilder(harness.uri("/v1/sandboxes/" + id + "/network/egress"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)), true);
    }

    private static List<String> slotNamespaces() throws Exception {
        return NetNamespaces.list(network.prefix() + "-s");
    }
}
