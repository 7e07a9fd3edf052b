package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.Sysctl;
import java.io.IOException;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A pool that collides with the host is refused with the option named; what the daemon leaves alone is reported. */
class HostFitTest {
    private static TestNetwork network;
    private static TestHost neighbour;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
        neighbour = network.addTestHost(1, "100.72.9.0/24"); // the host namespace now has 100.72.9.1/24 and its route
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void aPoolHoldingAHostAddressIsRefusedNamingIt() {
        assertThatThrownBy(() -> NetworkSlots.open(network.config(0).withPool(Ipv4Cidr.parse("100.72.0.0/16")), Set.of()))
                .isInstanceOfSatisfying(NetworkConfigException.class, e -> {
                    assertThat(e.option()).isEqualTo("network-pool");
                    assertThat(e.reason()).contains("100.72.9.1/24").contains(neighbour.link());
                });
    }

    @Test
    void aPoolOverlappingAHostRouteIsRefusedNamingIt() {
        assertThatThrownBy(() -> NetworkSlots.open(network.config(0).withPool(Ipv4Cidr.parse("100.72.9.128/25")), Set.of()))
                .isInstanceOfSatisfying(NetworkConfigException.class, e -> {
                    assertThat(e.option()).isEqualTo("network-pool");
                    assertThat(e.reason()).contains("route 100.72.9.0/24 dev " + neighbour.link());
                });
    }

    @Test
    void aLinkLocalPoolIsRefused() {
        assertThatThrownBy(() -> NetworkSlots.open(network.config(0).withPool(Ipv4Cidr.parse("169.254.0.0/24")), Set.of()))
                .isInstanceOfSatisfying(NetworkConfigException.class, e -> assertThat(e.reason()).contains("169.254.0.0/16"));
    }

    @Test
    void withLeaveForeignForwardDropAndForwardingOffAreReportedNotChanged() throws IOException {
        String foreign = TestResources.text("foreign-forward-drop.nft");
        network.inHost(() -> {
            Nftables.run(foreign);
            Sysctl.write(Sysctl.ipv4Interface(neighbour.link(), "forwarding"), "0");
            return null;
        });
        try (NetworkSlots slots = NetworkSlots.open(network.config(0).withHostFirewall(HostFirewallMode.LEAVE), Set.of())) {
            assertThat(slots.warnings()).anyMatch(w -> w.contains("ip somebody_else/FORWARD")
                    && w.contains("nft insert rule ip somebody_else FORWARD 'iifname \"" + network.prefix() + "-h*\""));
            assertThat(slots.warnings()).anyMatch(w -> w.contains("forwarding is off on " + neighbour.link()));
            assertThat(network.inHost(() -> Nftables.run("list table ip somebody_else"))).contains("policy drop");
        } finally {
            network.inHost(() -> {
                Nftables.run("delete table ip somebody_else");
                Sysctl.write(Sysctl.ipv4Interface(neighbour.link(), "forwarding"), "1");
                return null;
            });
        }
    }
}
