package dev.ateom.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.network.firewall.DroppingForwardChain;
import dev.ateom.network.firewall.FirewallBackend;
import dev.ateom.network.firewall.Iptables;
import dev.ateom.network.nft.Nftables;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Forward chains of other software that drop by default, each built the way that software builds it, in a host
 * namespace of the test's own: Docker's (iptables-nft, {@code FORWARD} policy drop, {@code DOCKER-USER}), ufw's
 * (iptables-legacy, policy drop, no {@code DOCKER-USER}) and firewalld's (an nftables table of its own whose forward
 * chain ends in a reject). With the default {@code allow} a fake guest reaches a test host through them, with
 * {@code leave} it does not and the warning gives the rules; after close no rule of the daemon is left, and the
 * chains are as they were (policy, their own rules).
 */
class HostFirewallTest {
    private TestNetwork network;
    private TestHost testHost;

    @BeforeEach
    void createHost() throws IOException {
        network = TestNetwork.create();
        testHost = network.addTestHost(1, "198.51.100.0/24");
    }

    @AfterEach
    void removeHost() throws IOException {
        network.close();
    }

    @Test
    void dockersForwardDropGetsTheRulesInDockerUserAndLosesThemAtClose() throws IOException {
        String before = dockersChains();

        NetworkSlots slots = NetworkSlots.open(network.config(0), Set.of());
        try {
            assertThat(slots.openedForwardChains()).containsExactly(
                    new DroppingForwardChain(FirewallBackend.IPTABLES_NFT, "ip", "filter", "FORWARD", "DOCKER-USER"));
            assertThat(listIptables(FirewallBackend.IPTABLES_NFT)).contains("-A DOCKER-USER -s 100.72.0.0/24 -i " + network.prefix() + "-h+");
            assertGuestReachesTheTestHost(slots);
        } finally {
            slots.close();
        }
        assertThat(listIptables(FirewallBackend.IPTABLES_NFT)).as("Docker's chains as they were").isEqualTo(before);
    }

    @Test
    void ufwsLegacyForwardDropWithoutDockerUserGetsTheRulesAtItsTop() throws IOException {
        iptables(FirewallBackend.IPTABLES_LEGACY, List.of("-P", "FORWARD", "DROP"), List.of("-A", "FORWARD", "-i", "eth9", "-j", "ACCEPT"));
        String before = listIptables(FirewallBackend.IPTABLES_LEGACY);

        assertOpenedAndReachable(new DroppingForwardChain(FirewallBackend.IPTABLES_LEGACY, "ip", "filter", "FORWARD", "FORWARD"));
        assertThat(listIptables(FirewallBackend.IPTABLES_LEGACY)).isEqualTo(before);
    }

    @Test
    void firewalldsFinalRejectGetsTheRulesInItsOwnTable() throws IOException {
        String table = "table inet fwtest {\n\tchain filter_FORWARD {\n\t\ttype filter hook forward priority filter + 10; policy accept;\n"
                + "\t\tct state established,related accept\n\t\treject with icmpx admin-prohibited\n\t}\n}\n";
        network.inHost(() -> Nftables.run(table));
        String before = network.inHost(() -> Nftables.run("list table inet fwtest"));

        assertOpenedAndReachable(new DroppingForwardChain(FirewallBackend.NFTABLES, "inet", "fwtest", "filter_FORWARD", "filter_FORWARD"));
        assertThat(network.inHost(() -> Nftables.run("list table inet fwtest"))).isEqualTo(before);
    }

    @Test
    void leaveChangesNothingAndTheWarningGivesTheRules() throws IOException {
        String before = dockersChains();

        try (NetworkSlots slots = NetworkSlots.open(network.config(0).withHostFirewall(HostFirewallMode.LEAVE), Set.of())) {
            assertThat(slots.openedForwardChains()).isEmpty();
            assertThat(listIptables(FirewallBackend.IPTABLES_NFT)).isEqualTo(before);
            assertThat(slots.warnings()).anyMatch(w -> w.contains("ip filter/FORWARD (iptables-nft, rules in DOCKER-USER)")
                    && w.contains("iptables-nft -t filter -I DOCKER-USER -i " + network.prefix() + "-h+ -s 100.72.0.0/24"));
            Slot slot = slots.acquire("sbx-leave", NetworkPolicy.DEFAULT);
            try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g1")) {
                assertThat(guest.connect(testHost.address(), 80)).as("dropped by the host's FORWARD").startsWith("SocketTimeoutException");
            } finally {
                slots.release(slot);
            }
        }
    }

    @Test
    void rulesADeadDaemonLeftAreReplacedAtTheNextStartNotDoubled() throws IOException {
        String before = dockersChains();
        NetworkSlots first = NetworkSlots.open(network.config(0), Set.of());
        Slot kept = first.acquire("sbx-kept", NetworkPolicy.DEFAULT);
        kept.tap().close();
        kept.namespace().close();
        first.close(); // a slot still in use: the host's rules stay, as for a daemon that died

        NetworkSlots second = NetworkSlots.open(network.config(0), Set.of());
        try {
            assertThat(second.reclaimed()).contains(kept.name());
            String during = listIptables(FirewallBackend.IPTABLES_NFT);
            assertThat(during.lines().filter(l -> l.contains("ateom:" + network.prefix() + ":sandbox-forward"))).hasSize(2);
        } finally {
            second.close();
        }
        assertThat(listIptables(FirewallBackend.IPTABLES_NFT)).isEqualTo(before);
    }

    private void assertGuestReachesTheTestHost(NetworkSlots slots) throws IOException {
        Slot slot = slots.acquire("sbx-out", NetworkPolicy.DEFAULT);
        try (FakeGuest guest = FakeGuest.attach(slot, network.prefix() + "-g1")) {
            assertThat(HttpGet.body(guest.httpGet(testHost.address(), 80, "/"))).isEqualTo(testHost.body());
        } finally {
            slots.release(slot);
        }
    }

    /** Docker's chains as dockerd makes them (iptables-nft): FORWARD policy drop, jumping first to DOCKER-USER; their listing. */
    private String dockersChains() throws IOException {
        iptables(FirewallBackend.IPTABLES_NFT, List.of("-P", "FORWARD", "DROP"), List.of("-N", "DOCKER-USER"),
                List.of("-A", "DOCKER-USER", "-j", "RETURN"), List.of("-A", "FORWARD", "-j", "DOCKER-USER"));
        return listIptables(FirewallBackend.IPTABLES_NFT);
    }

    /** Opens slots, checks which chain got the rules and that a guest reaches the test host through it, closes them. */
    private void assertOpenedAndReachable(DroppingForwardChain expected) throws IOException {
        NetworkSlots slots = NetworkSlots.open(network.config(0), Set.of());
        try {
            assertThat(slots.openedForwardChains()).containsExactly(expected);
            assertGuestReachesTheTestHost(slots);
        } finally {
            slots.close();
        }
    }

    @SafeVarargs
    private void iptables(FirewallBackend backend, List<String>... commands) throws IOException {
        Iptables binary = Iptables.find(backend).orElseThrow(() -> new IllegalStateException(backend.label()
                + " is missing: scripts/setup.sh installs the iptables package"));
        network.inHost(() -> {
            for (List<String> command : commands) {
                binary.run(command);
            }
            return null;
        });
    }

    private String listIptables(FirewallBackend backend) throws IOException {
        Iptables binary = Iptables.find(backend).orElseThrow();
        return network.inHost(() -> binary.run(List.of("-t", "filter", "-S")));
    }
}
