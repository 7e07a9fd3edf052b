package dev.ateom.network.firewall;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rules the daemon puts into other software's forward chains, and the commands it tells an operator to run. */
class SandboxForwardRulesTest {
    private final SandboxForwardRules rules = new SandboxForwardRules("ateom", "100.72.0.0/16");

    @Test
    void onlyTheDaemonsVethsAndPoolAnswersOnlyOnTheWayBack() {
        assertThat(rules.nftStatements()).containsExactly(
                "iifname \"ateom-h*\" ip saddr 100.72.0.0/16 counter accept comment \"ateom:ateom:sandbox-forward\"",
                "oifname \"ateom-h*\" ip daddr 100.72.0.0/16 ct state established,related counter accept comment \"ateom:ateom:sandbox-forward\"");
        assertThat(rules.commandsFor(new DroppingForwardChain(FirewallBackend.IPTABLES_NFT, "ip", "filter", "FORWARD", "DOCKER-USER")))
                .containsExactly(
                        "iptables-nft -t filter -I DOCKER-USER -i ateom-h+ -s 100.72.0.0/16 -m comment --comment ateom:ateom:sandbox-forward -j ACCEPT",
                        "iptables-nft -t filter -I DOCKER-USER -o ateom-h+ -d 100.72.0.0/16 -m conntrack --ctstate RELATED,ESTABLISHED"
                                + " -m comment --comment ateom:ateom:sandbox-forward -j ACCEPT");
        assertThat(rules.commandsFor(new DroppingForwardChain(FirewallBackend.NFTABLES, "inet", "firewalld", "filter_FORWARD", "filter_FORWARD")))
                .first().isEqualTo("nft insert rule inet firewalld filter_FORWARD 'iifname \"ateom-h*\" ip saddr 100.72.0.0/16 counter accept"
                        + " comment \"ateom:ateom:sandbox-forward\"'");
    }
}
