package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A daemon that died with slots in use: the next one reclaims what no sandbox owns and adopts the rest. */
class ReclaimTest {
    private static TestNetwork network;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void unownedSlotsAreReclaimedAndAnOwnedOneIsAdoptedWithItsPorts() throws IOException {
        NetworkConfig config = network.config(1);
        NetworkSlots first = NetworkSlots.open(config, Set.of());
        Slot kept = first.acquire("sbx-kept", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        Slot orphan = first.acquire("sbx-gone", NetworkPolicy.DEFAULT);
        int hostPort = kept.publishedPorts().getFirst().hostPort();
        abandon(first, kept, orphan);

        try (NetworkSlots second = NetworkSlots.open(config.withReadySlots(0), Set.of(kept.name()))) {
            assertThat(second.reclaimed()).contains(orphan.name()).doesNotContain(kept.name());
            assertThat(NetNamespaces.exists(orphan.name())).isFalse();
            assertThat(network.hostLinks()).doesNotContain(orphan.slotName().hostInterface()).contains(kept.slotName().hostInterface());
            assertThat(NetNamespaces.exists(kept.name())).isTrue();

            Slot adopted = second.adopt(kept.name(), "sbx-kept",
                    new NetworkPolicy(new EgressPolicy(List.of(), List.of(Ipv4Cidr.parse("203.0.113.0/24"))), List.of(new PortRequest(8080, hostPort))));
            assertThat(adopted.hasTap()).isFalse();
            assertThatThrownBy(adopted::tapFd).isInstanceOf(IllegalStateException.class);
            assertThat(adopted.slotAddress()).isEqualTo(kept.slotAddress());
            assertThat(adopted.publishedPorts()).containsExactly(new PublishedPort(8080, hostPort));
            assertThat(network.inHost(() -> Nftables.run("list map ip " + network.prefix() + " published_ports")))
                    .contains(hostPort + " : " + kept.slotAddress() + " . 8080");
            try (NetNamespace inside = NetNamespace.named(kept.name())) {
                assertThat(inside.call(() -> Nftables.run("list set ip ateom egress_deny"))).contains("203.0.113.0/24");
            }
            assertThatThrownBy(() -> second.adopt(kept.name(), "sbx-kept", NetworkPolicy.DEFAULT)).isInstanceOf(IllegalStateException.class);
            second.release(adopted);
        }
        assertThat(NetNamespaces.list(network.prefix() + "-s")).isEmpty();
    }

    @Test
    void aSlotNameOfAnotherPrefixIsNotOwnable() {
        assertThatThrownBy(() -> NetworkSlots.open(network.config(0), Set.of("zzz-s1"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zzz-s1");
    }

    /** What a killed daemon leaves: its slots in the kernel, none of its descriptors or sockets. */
    private static void abandon(NetworkSlots slots, Slot... inUse) {
        for (Slot slot : inUse) {
            slot.reservations().forEach(HostPortReservation::close);
            slot.tap().close();
            slot.namespace().close();
        }
        slots.close(); // removes the ready slot only: slots in use outlive a daemon
    }
}
