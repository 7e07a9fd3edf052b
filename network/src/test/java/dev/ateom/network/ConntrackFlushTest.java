package dev.ateom.network;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A released slot leaves no connection-tracking entry of its address in the host, so its next tenant inherits none. */
class ConntrackFlushTest {
    private static TestNetwork network;
    private static TestHost testHost;
    private static NetworkSlots slots;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
        testHost = network.addTestHost(1, "198.51.100.0/24");
        slots = network.openSlots(network.config(0));
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void releaseFlushesTheSlotsEntriesAndOnlyThose() throws IOException {
        Slot slot = slots.acquire("sbx-ct", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        Slot neighbour = slots.acquire("sbx-neighbour", NetworkPolicy.DEFAULT);
        String address = "=" + slot.slotAddress() + " ";
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g1");
             FakeGuest other = FakeGuest.attach(neighbour, network.prefix() + "-g2")) {
            guest.serveHttp(8080, "hi");
            assertThat(HttpGet.body(guest.httpGet(testHost.address(), 80, "/"))).isEqualTo(testHost.body());
            assertThat(HttpGet.body(other.httpGet(testHost.address(), 80, "/"))).isEqualTo(testHost.body());
            int hostPort = slot.publishedPorts().getFirst().hostPort();
            assertThat(HttpGet.body(network.inHost(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/")))).isEqualTo("hi");

            List<String> before = hostEntries();
            assertThat(before).anyMatch(e -> e.contains("src" + address) && e.contains("dport=80 ")); // outgoing
            assertThat(before).anyMatch(e -> e.contains("dport=" + hostPort + " ") && e.contains("src" + address)); // published port
            assertThat(before).anyMatch(e -> e.contains("src=" + neighbour.slotAddress() + " "));
        }
        slots.release(slot);
        List<String> after = hostEntries();
        assertThat(after).noneMatch(e -> e.contains(address));
        assertThat(after).anyMatch(e -> e.contains("src=" + neighbour.slotAddress() + " "));
        slots.release(neighbour);
    }

    /** The host namespace's connection-tracking table as the kernel prints it (read from a thread inside it). */
    private static List<String> hostEntries() throws IOException {
        return network.inHost(() -> Files.readAllLines(Path.of("/proc/thread-self/net/nf_conntrack")));
    }
}
