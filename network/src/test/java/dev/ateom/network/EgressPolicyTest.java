package dev.ateom.network;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Egress policy with real traffic: a fake guest on a slot's TAP talks to two test hosts (namespaces of the test's own
 * routed from its host namespace); one is allowed, one denied, and the policy changes while the guest runs.
 */
class EgressPolicyTest {
    private static TestNetwork network;
    private static TestHost allowed;
    private static TestHost denied;
    private static NetworkSlots slots;

    @BeforeAll
    static void createHosts() throws IOException {
        network = TestNetwork.create();
        allowed = network.addTestHost(1, "198.51.100.0/24");
        denied = network.addTestHost(2, "203.0.113.0/24");
        slots = network.openSlots(network.config(1));
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void aDeniedNetworkIsRefusedAtOnceAndAnAllowedOneAnswers() throws IOException {
        Slot slot = slots.acquire("sbx-egress", new NetworkPolicy(new EgressPolicy(List.of(), List.of(cidr(denied))), List.of()));
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g1")) {
            assertThat(HttpGet.body(guest.httpGet(allowed.address(), 80, "/"))).isEqualTo(allowed.body());
            long started = System.nanoTime();
            assertThat(guest.connect(denied.address(), 80)).startsWith("NoRouteToHostException");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("refused, not timed out").isLessThan(Duration.ofSeconds(3));
            assertThat(denied.sources()).isEmpty();
            assertThat(allowed.sources()).containsExactly(slot.slotAddress().toString());
        } finally {
            slots.release(slot);
        }
    }

    @Test
    void alwaysDeniedRangesStayClosedUnlessAllowedExplicitly() throws IOException {
        Slot slot = slots.acquire("sbx-defaults", NetworkPolicy.DEFAULT);
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g2")) {
            // (loopback is denied too, but a guest's own stack never sends 127/8 to its gateway)
            for (String address : List.of("10.1.2.3", "192.168.1.1", "172.16.0.1", "169.254.169.254", "100.64.0.1")) {
                assertThat(guest.connect(Ipv4Address.parse(address), 80)).as(address).startsWith("NoRouteToHostException");
            }
            // the pool itself: the host's end of the slot's own link, and another slot's address
            assertThat(guest.connect(slot.hostAddress(), 80)).startsWith("NoRouteToHostException");
            assertThat(HttpGet.body(guest.httpGet(denied.address(), 80, "/"))).isEqualTo(denied.body());
        } finally {
            slots.release(slot);
        }
    }

    @Test
    void aReplacedPolicyAppliesToTheNextPacketIncludingOpenConnections() throws IOException {
        Slot slot = slots.acquire("sbx-replace", NetworkPolicy.DEFAULT);
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g3")) {
            assertThat(HttpGet.body(guest.httpGet(denied.address(), 80, "/"))).isEqualTo(denied.body());
            Socket open = guest.openConnection(allowed.address(), 80);
            try (open) {
                slots.replaceEgress(slot, new EgressPolicy(List.of(), List.of(cidr(allowed))));
                assertThat(slot.egress().deny()).containsExactly(cidr(allowed));

                assertThat(guest.connect(allowed.address(), 80)).startsWith("NoRouteToHostException");
                assertThat(HttpGet.body(guest.httpGet(denied.address(), 80, "/"))).isEqualTo(denied.body());
                // the connection opened before the change is cut too: its next packet is rejected
                open.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThatThrownBy(() -> open.getInputStream().read()).isInstanceOf(IOException.class);
            }
            slots.replaceEgress(slot, new EgressPolicy(List.of(), List.of(cidr(denied))));
            assertThat(guest.connect(denied.address(), 80)).startsWith("NoRouteToHostException");
            assertThat(HttpGet.body(guest.httpGet(allowed.address(), 80, "/"))).isEqualTo(allowed.body());
        } finally {
            slots.release(slot);
        }
    }

    @Test
    void twoSlotsLeaveWithTwoDistinctAddresses() throws IOException {
        Slot one = slots.acquire("sbx-one", NetworkPolicy.DEFAULT);
        Slot two = slots.acquire("sbx-two", NetworkPolicy.DEFAULT);
        try (FakeGuest first = FakeGuest.attach(one, network.prefix() + "-g4"); FakeGuest second = FakeGuest.attach(two, network.prefix() + "-g5")) {
            int before = allowed.sources().size();
            assertThat(HttpGet.body(first.httpGet(allowed.address(), 80, "/"))).isEqualTo(allowed.body());
            assertThat(HttpGet.body(second.httpGet(allowed.address(), 80, "/"))).isEqualTo(allowed.body());
            List<String> seen = allowed.sources().subList(before, allowed.sources().size());
            assertThat(seen).containsExactly(one.slotAddress().toString(), two.slotAddress().toString()).doesNotHaveDuplicates();
        } finally {
            slots.release(one);
            slots.release(two);
        }
    }

    private static Ipv4Cidr cidr(TestHost host) {
        return new Ipv4Cidr(host.address(), 32);
    }
}
