package dev.ateom.network;

import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.os.Sysctl;
import dev.ateom.network.os.TapDevice;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Building, handing out, releasing and refilling slots, against real namespaces in a host of the test's own. */
class SlotLifecycleTest {
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
    void aReadySlotIsCompleteAndItsReleaseLeavesNothing() throws IOException {
        try (NetworkSlots slots = NetworkSlots.open(network.config(2), Set.of())) {
            assertThat(slots.awaitReady(Duration.ofSeconds(30))).isTrue();
            Slot slot = slots.acquire("sbx-a", NetworkPolicy.DEFAULT);

            assertThat(slot.name()).isEqualTo(network.prefix() + "-s" + slot.slotName().index());
            assertThat(NetNamespaces.exists(slot.name())).isTrue();
            assertThat(slot.hostAddress().toString()).startsWith("100.72.0.");
            assertThat(slot.slotAddress()).isEqualTo(slot.hostAddress().plus(1));
            assertThat(TapDevice.flagsOf(slot.tapFd())).isEqualTo(TapDevice.IFF_TAP | TapDevice.IFF_NO_PI | TapDevice.IFF_VNET_HDR);

            String veth = slot.slotName().hostInterface();
            assertThat(network.hostLinks()).contains(veth);
            assertThat(network.inHost(() -> addressesOf(veth))).containsExactly(slot.hostAddress() + "/30");
            assertThat(network.inHost(() -> Sysctl.read(Sysctl.ipv4Interface(veth, "route_localnet")))).isEqualTo("1");

            try (NetNamespace inside = NetNamespace.named(slot.name())) {
                assertThat(inside.call(() -> addressesOf("tap0"))).containsExactly("169.254.0.22/30");
                assertThat(inside.call(() -> addressesOf("veth0"))).containsExactly(slot.slotAddress() + "/30");
                assertThat(inside.call(() -> new MacAddress(link("tap0").mac()))).isEqualTo(GuestNetwork.GATEWAY_MAC);
                assertThat(inside.call(() -> Nftables.run("list tables"))).contains("table ip ateom");
            }

            slots.release(slot);
            assertThat(NetNamespaces.exists(slot.name())).isFalse();
            assertThat(network.hostLinks()).doesNotContain(veth);
            slots.release(slot); // twice: nothing happens
            assertThat(slots.awaitReady(Duration.ofSeconds(30))).isTrue();
        }
        assertThat(NetNamespaces.list(network.prefix() + "-s")).isEmpty();
        assertThat(network.hostLinks()).noneMatch(n -> n.startsWith(network.prefix() + "-h"));
        assertThat(network.inHost(() -> Nftables.run("list tables"))).doesNotContain("table ip " + network.prefix());
    }

    @Test
    void withoutReadySlotsAcquireBuildsOneOnTheSpot() throws IOException {
        try (NetworkSlots slots = NetworkSlots.open(network.config(0), Set.of())) {
            assertThat(slots.readyCount()).isZero();
            Slot slot = slots.acquire("sbx-cold", NetworkPolicy.DEFAULT);
            assertThat(NetNamespaces.exists(slot.name())).isTrue();
            slots.release(slot);
        }
    }

    @Test
    void aFullPoolSaysSoAndAReleasedAddressRestsBeforeReuse() throws IOException {
        NetworkConfig twoSlots = network.config(0).withPool(Ipv4Cidr.parse("100.72.1.0/29")).withReuseDelay(Duration.ofMillis(700));
        try (NetworkSlots slots = NetworkSlots.open(twoSlots, Set.of())) {
            Slot first = slots.acquire("sbx-1", NetworkPolicy.DEFAULT);
            Slot second = slots.acquire("sbx-2", NetworkPolicy.DEFAULT);
            assertThat(List.of(first.slotName().index(), second.slotName().index())).containsExactlyInAnyOrder(0, 1);
            assertThatThrownBy(() -> slots.acquire("sbx-3", NetworkPolicy.DEFAULT))
                    .isInstanceOf(PoolExhaustedException.class).hasMessageContaining("100.72.1.0/29");

            slots.release(first);
            assertThatThrownBy(() -> slots.acquire("sbx-3", NetworkPolicy.DEFAULT)).isInstanceOf(PoolExhaustedException.class)
                    .hasMessageContaining("resting");
            Slot third = acquireWithin(slots, Duration.ofSeconds(10));
            assertThat(third.slotName().index()).isEqualTo(first.slotName().index());
            slots.release(second);
            slots.release(third);
        }
    }

    /** Retries while the released address rests (bounded). */
    private static Slot acquireWithin(NetworkSlots slots, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                return slots.acquire("sbx-3", NetworkPolicy.DEFAULT);
            } catch (PoolExhaustedException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static LinkEntry link(String interfaceName) throws IOException {
        try (RouteNetlink netlink = RouteNetlink.open()) {
            return netlink.links().stream().filter(l -> l.name().equals(interfaceName)).findFirst().orElseThrow();
        }
    }

    private static List<String> addressesOf(String interfaceName) throws IOException {
        int index = link(interfaceName).index();
        try (RouteNetlink netlink = RouteNetlink.open()) {
            return netlink.ipv4Addresses().stream().filter(a -> a.interfaceIndex() == index)
                    .map(a -> new Ipv4Address(a.address()) + "/" + a.prefixLength()).toList();
        }
    }

}
