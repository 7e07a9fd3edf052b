package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A guest port published on the host's loopback (of the test's host namespace), end to end. */
class PublishedPortTest {
    private static TestNetwork network;
    private static NetworkSlots slots;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
        slots = network.openSlots(network.config(1).withMaxPublishedPorts(4));
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void aPublishedGuestPortAnswersOnHostLoopbackAndKeepsItsHostPortWhenFree() throws IOException {
        Slot slot = slots.acquire("sbx-web", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        int hostPort;
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g1")) {
            guest.serveHttp(8080, "from the guest");
            assertThat(slot.publishedPorts()).hasSize(1);
            hostPort = slot.publishedPorts().getFirst().hostPort();
            assertThat(slot.publishedPorts().getFirst().guestPort()).isEqualTo(8080);
            assertThat(hostPort).isPositive();

            String answer = network.inHost(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/"));
            assertThat(answer).startsWith("HTTP/1.0 200 OK");
            assertThat(HttpGet.body(answer)).isEqualTo("from the guest");
            assertThat(network.inHost(() -> Nftables.run("list map ip " + network.prefix() + " published_ports")))
                    .contains(hostPort + " : " + slot.slotAddress() + " . 8080");
        } finally {
            slots.release(slot);
        }
        assertThat(network.inHost(() -> Nftables.run("list map ip " + network.prefix() + " published_ports"))).doesNotContain(hostPort + " :");
        assertThat(network.inHost(() -> connectError(hostPort))).as("nothing answers once released").contains("refused");

        Slot again = slots.acquire("sbx-web", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(new PortRequest(8080, hostPort))));
        try (FakeGuest guest = FakeGuest.attach(again, network.prefix() + "-g2")) {
            guest.serveHttp(8080, "resumed");
            assertThat(again.publishedPorts()).containsExactly(new PublishedPort(8080, hostPort));
            assertThat(HttpGet.body(network.inHost(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/")))).isEqualTo("resumed");
        } finally {
            slots.release(again);
        }
    }

    @Test
    void badPortRequestsNameTheFieldAndBuildNothing() throws IOException {
        int readyBefore = slots.readyCount();
        List<PortRequest> tooMany = new ArrayList<>();
        for (int port = 1; port <= 5; port++) {
            tooMany.add(PortRequest.guest(port));
        }
        assertThatThrownBy(() -> slots.acquire("sbx-bad", new NetworkPolicy(EgressPolicy.DEFAULT, tooMany)))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("network.ports");
                    assertThat(e.reason()).contains("at most 4");
                });
        assertThatThrownBy(() -> slots.acquire("sbx-bad", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(80), PortRequest.guest(70000)))))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> assertThat(e.field()).isEqualTo("network.ports[1].guest"));
        assertThatThrownBy(() -> slots.acquire("sbx-bad", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(0)))))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> assertThat(e.field()).isEqualTo("network.ports[0].guest"));
        assertThatThrownBy(() -> slots.acquire("sbx-bad", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(80), PortRequest.guest(80)))))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("network.ports[1].guest");
                    assertThat(e.reason()).contains("twice");
                });
        assertThatThrownBy(() -> slots.acquire("sbx-bad", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(new PortRequest(80, -1)))))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> assertThat(e.field()).isEqualTo("network.ports[0].host"));
        assertThat(slots.readyCount()).isEqualTo(readyBefore);
    }

    private static String connectError(int port) {
        try {
            HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), port, "/");
            return "connected";
        } catch (IOException e) {
            return e.getMessage();
        }
    }
}
