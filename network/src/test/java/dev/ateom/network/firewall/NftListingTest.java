package dev.ateom.network.firewall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.network.TestResources;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Chains read from a listing as libnftables prints it with handles (recorded in a namespace holding Docker's
 * iptables-nft table, a firewalld-like table ending in a reject, and a daemon table), and which of them drop sandbox
 * traffic by default.
 */
class NftListingTest {
    private static final List<NftChain> CHAINS = NftListing.chains(resource("docker-firewalld-ateom.nft"));

    @Test
    void chainsHooksPoliciesAndRulesWithHandlesAreRead() {
        assertThat(CHAINS).extracting(c -> c.family() + " " + c.table() + "/" + c.name())
                .containsExactly("ip filter/FORWARD", "ip filter/DOCKER-USER", "inet firewalld/filter_FORWARD", "ip ateom/forward");
        NftChain forward = CHAINS.getFirst();
        assertThat(forward.hook()).isEqualTo("forward");
        assertThat(forward.policy()).isEqualTo("drop");
        assertThat(forward.rules()).containsExactly(new NftRule("counter jump DOCKER-USER", 4));
        NftChain dockerUser = CHAINS.get(1);
        assertThat(dockerUser.hook()).as("a regular chain").isNull();
        assertThat(dockerUser.rules()).extracting(NftRule::handle).containsExactly(6L, 5L, 3L);
        assertThat(dockerUser.rules().get(1).text()).as("spaces collapsed").isEqualTo("iifname \"tzz-h*\" ip saddr 100.72.0.0/24 counter accept");
        NftChain firewalld = CHAINS.get(2);
        assertThat(firewalld.policy()).isEqualTo("accept");
        assertThat(firewalld.rules().getFirst().hasComment("ateom:tzz:sandbox-forward")).isTrue();
        assertThat(firewalld.rules().getFirst().hasComment("ateom:tz:sandbox-forward")).as("another prefix's comment").isFalse();
        assertThat(CHAINS.get(3).rules()).as("set lines are no rules").isEmpty();
    }

    @Test
    void dockersPolicyDropAndAFinalRejectDropByDefaultTheDaemonsOwnTableDoesNotCount() {
        assertThat(CHAINS.get(0).dropsForwardedByDefault()).isTrue();
        assertThat(CHAINS.get(1).dropsForwardedByDefault()).as("not a base chain").isFalse();
        assertThat(CHAINS.get(2).dropsForwardedByDefault()).as("policy accept, last rule rejects").isTrue();
        assertThat(DroppingForwardChains.inNftables(CHAINS, "ateom")).containsExactly(
                new DroppingForwardChain(FirewallBackend.IPTABLES_NFT, "ip", "filter", "FORWARD", "DOCKER-USER"),
                new DroppingForwardChain(FirewallBackend.NFTABLES, "inet", "firewalld", "filter_FORWARD", "filter_FORWARD"));
        assertThat(DroppingForwardChains.inNftables(CHAINS, "other")).as("another prefix's table is someone else's")
                .extracting(DroppingForwardChain::table).contains("ateom");
    }

    @Test
    void iptablesForwardWithoutDockerUserGetsTheRulesItself() {
        List<NftChain> ufw = NftListing.chains("table ip filter { # handle 1\n\tchain FORWARD { # handle 1\n"
                + "\t\ttype filter hook forward priority filter; policy drop;\n\t\tcounter jump ufw-before-forward # handle 7\n\t}\n}\n");
        assertThat(DroppingForwardChains.inNftables(ufw, "ateom"))
                .containsExactly(new DroppingForwardChain(FirewallBackend.IPTABLES_NFT, "ip", "filter", "FORWARD", "FORWARD"));
    }

    @Test
    void aChainAcceptingByDefaultIsLeftAlone() {
        List<NftChain> open = NftListing.chains("table inet filter { # handle 1\n\tchain forward { # handle 2\n"
                + "\t\ttype filter hook forward priority filter; policy accept;\n\t\tct state invalid drop # handle 3\n\t}\n}\n");
        assertThat(DroppingForwardChains.inNftables(open, "ateom")).isEmpty();
    }

    static String resource(String name) {
        return TestResources.text("firewall/" + name);
    }
}
