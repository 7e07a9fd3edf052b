package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.vsock.ProbeClient;
import dev.ateom.chv.vsock.ProbeReply;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.network.HttpGet;
import dev.ateom.network.Ipv4Address;
import dev.ateom.network.TestHost;
import dev.ateom.network.TestNetwork;
import dev.ateom.network.os.NetNamespaces;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A networked sandbox end to end with a real guest (the CHV stand-in's {@code qemu} backend): the daemon gives it a
 * slot, the guest fetches a page from a test host (a namespace of the test's own, routed from the test's host
 * namespace, which the daemon uses as its host), a denied test host is refused, a policy change applies at once, a
 * port the guest serves is reachable on the host's loopback; all of it again after suspend and resume; then two
 * clones of one snapshot run side by side and the test host sees two distinct source addresses. Prints the time
 * from the end of a resume or clone to the guest's first successful request.
 */
class NetworkedGuestTest {
    private static final Duration PROBE = Duration.ofSeconds(20);
    private static final int GUEST_PORT = 8080;
    @TempDir static Path dir;
    static TestNetwork network;
    static TestHost web;
    static TestHost denied;
    static DaemonHarness daemon;
    static GuestImage guest;

    @BeforeAll
    static void start() throws Exception {
        guest = GuestImage.ensureBuilt();
        network = TestNetwork.create();
        web = network.addTestHost(1, "198.51.100.0/24");
        denied = network.addTestHost(2, "203.0.113.0/24");
        Path chv = dir.resolve("cloud-hypervisor");
        Files.writeString(chv, "#!/bin/sh\nATEOM_STANDIN_BACKEND=qemu exec " + TestTools.standIn() + " \"$@\"\n");
        Files.setPosixFilePermissions(chv, PosixFilePermissions.fromString("rwxr-xr-x"));
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.CLOUD_HYPERVISOR, chv.toString());
        flags.put(ConfigOption.IMAGE_ROOTS, String.join(",", guest.vmlinux().getParent().toString(),
                guest.initramfs().getParent().toString(), guest.rootfs().toString()));
        flags.put(ConfigOption.NETWORK, "true");
        flags.put(ConfigOption.NETWORK_PREFIX, network.prefix());
        flags.put(ConfigOption.NETWORK_HOST_NAMESPACE, network.prefix() + "-host");
        flags.put(ConfigOption.NETWORK_POOL, "100.72.0.0/24");
        flags.put(ConfigOption.NETWORK_POOL_READY, "1");
        flags.put(ConfigOption.NETWORK_REUSE_DELAY, "0");
        // the test hosts route the pool back, so the servers see each slot's own address
        flags.put(ConfigOption.NETWORK_ROUTED_INTERFACES, web.link() + "," + denied.link());
        daemon = new DaemonHarness(dir, flags);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (daemon != null) daemon.close();
        } finally {
            if (network != null) network.close(); // fails when anything with the test's prefix is left
        }
        assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
    }

    @Test
    void aGuestReachesATestHostAcrossSuspendResumeAndFromTwoClonesSideBySide() throws Exception {
        JsonNode created = daemon.createOk(guestSpec("net-guest")).body();
        System.out.println("TIMING create network step: " + created.path("timingsMs").path("network").asLong() + " ms, vmAddNet "
                + created.path("timingsMs").path("vmAddNet").asLong() + " ms");
        JsonNode sandbox = created.path("sandbox");
        ProbeClient probe = probe(sandbox);
        String slotAddress = sandbox.path("runtime").path("network").path("slotAddress").asText();
        assertThat(fetchWeb(probe)).isEqualTo(web.body());
        assertThat(web.sources()).containsExactly(slotAddress);
        assertThat(probe.connect(denied.address().toString(), 80).errno()).as("denied by the policy").isEqualTo("EHOSTUNREACH");
        assertThat(probe.connect("10.1.2.3", 80).errno()).as("always denied").isEqualTo("EHOSTUNREACH");
        probe.listen(GUEST_PORT);
        int hostPort = sandbox.path("runtime").path("network").path("ports").path(0).path("host").asInt();
        assertThat(fromHostLoopback(hostPort)).isEqualTo(ProbeClient.httpBodyFor(GUEST_PORT));

        // a new policy is in force at once: the web host is now denied, the other one allowed
        assertThat(putEgress("net-guest", "{\"deny\": [\"198.51.100.0/24\"]}").status()).isEqualTo(200);
        assertThat(probe.connect(web.address().toString(), 80).errno()).isEqualTo("EHOSTUNREACH");
        assertThat(bodyOf(probe.httpGet(denied.address().toString(), 80, "/"))).isEqualTo(denied.body());
        assertThat(putEgress("net-guest", "{\"deny\": [\"203.0.113.0/24\"]}").status()).isEqualTo(200);

        var suspended = daemon.post("/v1/sandboxes/net-guest/suspend", "{}");
        assertThat(suspended.status()).as(suspended.body().toString()).isEqualTo(200);
        String snapshot = suspended.body().path("snapshotId").asText();
        var resumed = daemon.post("/v1/sandboxes/net-guest/resume", "{}");
        assertThat(resumed.status()).as(resumed.body().toString()).isEqualTo(200);
        probe = probe(resumed.body().path("sandbox"));
        long afterResume = millisToFirstRequest(probe);
        JsonNode resumedNet = resumed.body().path("sandbox").path("runtime").path("network");
        assertThat(web.sources().getLast()).as("the resumed sandbox leaves with its new slot's address")
                .isEqualTo(resumedNet.path("slotAddress").asText());
        assertThat(probe.connect(denied.address().toString(), 80).errno()).as("the policy after resume").isEqualTo("EHOSTUNREACH");
        assertThat(resumedNet.path("ports").path(0).path("host").asInt()).as("the same host port").isEqualTo(hostPort);
        assertThat(fromHostLoopback(hostPort)).as("the guest's listener, restored").isEqualTo(ProbeClient.httpBodyFor(GUEST_PORT));

        List<ProbeClient> clones = new ArrayList<>();
        List<String> cloneAddresses = new ArrayList<>();
        List<Long> cloneFirstRequests = new ArrayList<>();
        for (String id : List.of("net-clone-1", "net-clone-2")) {
            ObjectNode clone = ApiJson.mapper().createObjectNode().put("fromSnapshot", snapshot).put("id", id);
            clone.putObject("identity").put("name", id).put("namespace", "tests");
            JsonNode cloned = daemon.createOk(clone).body().path("sandbox");
            ProbeClient cloneProbe = probe(cloned);
            cloneFirstRequests.add(millisToFirstRequest(cloneProbe));
            clones.add(cloneProbe);
            cloneAddresses.add(cloned.path("runtime").path("network").path("slotAddress").asText());
        }
        // both clones (and the original) running at once, each fetching again now
        for (ProbeClient cloneProbe : clones) assertThat(fetchWeb(cloneProbe)).isEqualTo(web.body());
        assertThat(cloneAddresses).doesNotHaveDuplicates().doesNotContain(resumedNet.path("slotAddress").asText());
        assertThat(web.sources().subList(web.sources().size() - 2, web.sources().size()))
                .as("the test host sees each clone's own address").containsExactlyElementsOf(cloneAddresses);
        assertThat(clones.getFirst().connect(denied.address().toString(), 80).errno()).as("the clone's inherited policy")
                .isEqualTo("EHOSTUNREACH");
        System.out.println("TIMING first request after resume: " + afterResume + " ms; after clone: " + cloneFirstRequests + " ms");

        for (String id : List.of("net-clone-1", "net-clone-2", "net-guest")) {
            assertThat(daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").status()).isEqualTo(204);
        }
        assertThat(NetNamespaces.list(network.prefix() + "-s").size()).as("only the ready slot is left").isLessThanOrEqualTo(1);
    }

    /** Polls (bounded: 60 s, 100 ms apart) until the guest's GET of the web host succeeds; how long it took. */
    private static long millisToFirstRequest(ProbeClient probe) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(60).toNanos();
        ProbeReply last = null;
        while (System.nanoTime() < deadline) {
            last = probe.httpGet(web.address().toString(), 80, "/");
            if (last.ok() && bodyOf(last).equals(web.body())) return (System.nanoTime() - start) / 1_000_000;
            Thread.sleep(100);
        }
        throw new AssertionError("the guest never reached " + web.address() + ": " + last);
    }

    private static String fetchWeb(ProbeClient probe) {
        return bodyOf(probe.httpGet(web.address().toString(), 80, "/"));
    }

    private static String fromHostLoopback(int hostPort) throws Exception {
        return HttpGet.body(network.inHost(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/")));
    }

    private static String bodyOf(ProbeReply reply) {
        assertThat(reply.ok()).as(reply.toString()).isTrue();
        return HttpGet.body(reply.text());
    }

    private static DaemonHarness.Response putEgress(String id, String body) throws Exception {
        return daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/sandboxes/" + id + "/network/egress"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)), true);
    }

    private static ObjectNode guestSpec(String id) {
        ObjectNode spec = ApiJson.mapper().createObjectNode().put("id", id);
        spec.putObject("identity").put("name", id).put("namespace", "tests");
        spec.put("vcpus", 1).put("memoryMib", 256)
                .put("kernel", guest.vmlinux().toString()).put("initramfs", guest.initramfs().toString())
                .put("cmdline", GuestCmdline.defaults().render()).put("rootfs", guest.rootfs().toString());
        spec.putArray("durableDirs").add("data");
        ObjectNode networkSpec = spec.putObject("network");
        networkSpec.putObject("egress").putArray("deny").add("203.0.113.0/24");
        networkSpec.putArray("ports").addObject().put("guest", GUEST_PORT);
        spec.putObject("readiness").put("type", "probe").put("port", GuestCmdline.defaults().probePort()).put("timeoutSeconds", 180);
        return spec;
    }

    private static ProbeClient probe(JsonNode sandbox) {
        return new ProbeClient(Path.of(sandbox.path("runtime").path("vsockSocket").asText()), GuestCmdline.defaults().probePort(), PROBE);
    }
}
