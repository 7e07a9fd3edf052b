package dev.ateom.chv.vsock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvProcess;
import dev.ateom.chv.MemoryRestoreMode;
import dev.ateom.chv.NetConfig;
import dev.ateom.chv.RestoreConfig;
import dev.ateom.chv.RestoredNetConfig;
import dev.ateom.chv.VmState;
import dev.ateom.fixtures.guest.GuestImage;
import dev.ateom.network.EgressPolicy;
import dev.ateom.network.GuestNetwork;
import dev.ateom.network.HttpGet;
import dev.ateom.network.Ipv4Address;
import dev.ateom.network.NetworkPolicy;
import dev.ateom.network.NetworkSlots;
import dev.ateom.network.PortRequest;
import dev.ateom.network.Slot;
import dev.ateom.network.TestHost;
import dev.ateom.network.TestNetwork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real guest (CHV stand-in, {@code qemu} backend) on network slots, the way the daemon will run it: the slot's TAP
 * goes to the VMM with {@code vm.add-net}; the guest fetches a page from a test host (a namespace of the test's own)
 * and serves one on a published port; after a snapshot, two restores of it run side by side, each on a new slot (new
 * TAP, same gateway MAC), reach the test host from two distinct addresses, and the published port answers again.
 */
@Tag("guest")
class QemuStandInNetworkTest {
    private static final System.Logger LOG = System.getLogger(QemuStandInNetworkTest.class.getName());
    private static final int GUEST_PORT = 8080;
    private static GuestImage image;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildImage() {
        image = GuestImage.ensureBuilt();
    }

    @Test
    void aGuestReachesATestHostAfterBootAndFromTwoRestoresOnNewSlots() throws Exception {
        String prefix;
        try (TestNetwork network = TestNetwork.create()) {
            prefix = network.prefix();
            TestHost web = network.addTestHost(1, "198.51.100.0/24");
            NetworkPolicy publishing = new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(GUEST_PORT)));
            try (NetworkSlots slots = NetworkSlots.open(network.config(0), Set.of())) {
                Path snapshot = Files.createDirectories(dir.resolve("snap"));
                Slot booted = slots.acquire("sbx-a", publishing);
                try (var sandbox = new SandboxDirs(Files.createDirectories(dir.resolve("a")), image, "A")) {
                    sandbox.startShares(1);
                    Path vsock = dir.resolve("a/vsock.sock");
                    try (ChvProcess vmm = QemuStandIn.start(dir, "vmm-a", Duration.ofSeconds(5))) {
                        ChvClient chv = vmm.client();
                        chv.create(sandbox.vmConfig(1, vsock, GuestNetwork.kernelIpArgument()));
                        chv.addNet(NetConfig.onTapDescriptor("net0", GuestNetwork.GUEST_MAC.toString()), List.of(booted.tapFd()));
                        chv.boot();
                        var probe = new ProbeClient(vsock);
                        probe.awaitReady(Duration.ofSeconds(120));

                        assertThat(bodyOf(probe.httpGet(web.address().toString(), 80, "/"))).isEqualTo(web.body());
                        assertThat(web.sources()).containsExactly(booted.slotAddress().toString());
                        assertThat(probe.connect("10.1.2.3", 80).errno()).as("always denied").isEqualTo("EHOSTUNREACH");
                        probe.listen(GUEST_PORT);
                        assertThat(HttpGet.body(fromHostLoopback(network, booted))).isEqualTo(ProbeClient.httpBodyFor(GUEST_PORT));

                        chv.pause();
                        chv.snapshot(snapshot);
                        chv.shutdown();
                        chv.shutdownVmm();
                    }
                }
                slots.release(booted);

                // ---- two restores of the one snapshot, side by side, each on a slot of its own
                Slot first = slots.acquire("sbx-b", new NetworkPolicy(EgressPolicy.DEFAULT,
                        List.of(new PortRequest(GUEST_PORT, booted.publishedPorts().getFirst().hostPort()))));
                Slot second = slots.acquire("sbx-c", NetworkPolicy.DEFAULT);
                try (var b = new SandboxDirs(Files.createDirectories(dir.resolve("b")), image, "B");
                     var c = new SandboxDirs(Files.createDirectories(dir.resolve("c")), image, "C");
                     ChvProcess vmmB = QemuStandIn.start(dir, "vmm-b", Duration.ofSeconds(5));
                     ChvProcess vmmC = QemuStandIn.start(dir, "vmm-c", Duration.ofSeconds(5))) {
                    var restoreB = CompletableFuture.supplyAsync(() -> restore(snapshot, b, vmmB, first));
                    var restoreC = CompletableFuture.supplyAsync(() -> restore(snapshot, c, vmmC, second));
                    ProbeClient probeB = restoreB.join();
                    ProbeClient probeC = restoreC.join();
                    long firstRequestMs = firstRequestAfterResume(probeB, web);
                    long secondRequestMs = firstRequestAfterResume(probeC, web);
                    LOG.log(System.Logger.Level.INFO, "TIMING first HTTP request after resume on a new slot: {0} ms and {1} ms (clones side by side)",
                            firstRequestMs, secondRequestMs);
                    System.out.println("TIMING first HTTP request after resume on a new slot: " + firstRequestMs + " ms and "
                            + secondRequestMs + " ms");

                    assertThat(web.sources()).as("each clone leaves with its own slot's address")
                            .contains(first.slotAddress().toString(), second.slotAddress().toString());
                    assertThat(first.slotAddress()).isNotEqualTo(second.slotAddress()).isNotEqualTo(booted.slotAddress());
                    assertThat(first.publishedPorts()).as("the resumed sandbox keeps its host port")
                            .containsExactly(booted.publishedPorts().getFirst());
                    assertThat(HttpGet.body(fromHostLoopback(network, first))).isEqualTo(ProbeClient.httpBodyFor(GUEST_PORT));
                    for (ChvProcess vmm : List.of(vmmB, vmmC)) {
                        vmm.client().shutdown();
                        vmm.client().shutdownVmm();
                    }
                } finally {
                    slots.release(first);
                    slots.release(second);
                }
            }
        }
        assertThat(TestNetwork.leftovers(prefix)).isEmpty();
    }

    /** Restores the snapshot into a VMM of its own, on {@code slot}'s TAP, with fresh shares; resumes it. */
    private ProbeClient restore(Path snapshot, SandboxDirs sandbox, ChvProcess vmm, Slot slot) {
        try {
            Path copy = Files.createDirectories(sandbox.root.resolve("restore"));
            Files.createLink(copy.resolve("state.json"), snapshot.resolve("state.json"));
            Files.createLink(copy.resolve("memory-ranges"), snapshot.resolve("memory-ranges"));
            Files.copy(snapshot.resolve("config.json"), copy.resolve("config.json"));
            sandbox.startShares(2);
            Path vsock = sandbox.root.resolve("vsock.sock");
            sandbox.rewrite(copy.resolve("config.json"), 2, vsock, Map.of());
            RestoreConfig restore = RestoreConfig.fromDirectory(copy, MemoryRestoreMode.Copy)
                    .withNetFds(List.of(new RestoredNetConfig("net0", 1))).resuming();
            vmm.client().restore(restore, List.of(slot.tapFd()));
            assertThat(vmm.client().info().state()).isEqualTo(VmState.Running);
            return new ProbeClient(vsock);
        } catch (Exception e) {
            throw new IllegalStateException("restore on slot " + slot.name() + " failed", e);
        }
    }

    /** Polls the guest's GET of the test host (bounded) and returns how long the first success took. */
    private static long firstRequestAfterResume(ProbeClient probe, TestHost web) throws InterruptedException {
        Instant start = Instant.now();
        Instant deadline = start.plusSeconds(90);
        ProbeReply last = null;
        while (Instant.now().isBefore(deadline)) {
            last = probe.httpGet(web.address().toString(), 80, "/");
            if (last.ok() && bodyOf(last).equals(web.body())) {
                return Duration.between(start, Instant.now()).toMillis();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the restored guest never reached " + web.address() + ": " + last);
    }

    private static String fromHostLoopback(TestNetwork network, Slot slot) throws Exception {
        int hostPort = slot.publishedPorts().getFirst().hostPort();
        return network.inHost(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/"));
    }

    private static String bodyOf(ProbeReply reply) {
        return HttpGet.body(reply.text());
    }
}
