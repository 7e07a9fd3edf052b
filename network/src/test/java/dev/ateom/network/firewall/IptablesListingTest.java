package dev.ateom.network.firewall;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code iptables -S} read as iptables prints it: policies, chains, rules, quoted comments; deletions by spec. */
class IptablesListingTest {
    private static final IptablesListing DOCKER = IptablesListing.parse(NftListingTest.resource("docker-user.iptables"));

    @Test
    void policiesAndChainsAreRead() {
        assertThat(DOCKER.policy("FORWARD")).isEqualTo("DROP");
        assertThat(DOCKER.dropsByDefault("FORWARD")).isTrue();
        assertThat(DOCKER.dropsByDefault("INPUT")).isFalse();
        assertThat(DOCKER.hasChain("DOCKER-USER")).isTrue();
        assertThat(DOCKER.hasChain("ufw-user-forward")).isTrue();
        assertThat(DOCKER.hasChain("DOCKER")).isFalse();
    }

    @Test
    void onlyThisPrefixsRulesAreDeletedEachByItsWholeSpec() {
        assertThat(DOCKER.deletionsOfRulesWithComment("ateom:tzz:sandbox-forward")).containsExactly(
                List.of("-D", "DOCKER-USER", "-d", "100.72.0.0/24", "-o", "tzz-h+", "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED",
                        "-m", "comment", "--comment", "ateom:tzz:sandbox-forward", "-j", "ACCEPT"),
                List.of("-D", "DOCKER-USER", "-s", "100.72.0.0/24", "-i", "tzz-h+", "-m", "comment", "--comment", "ateom:tzz:sandbox-forward",
                        "-j", "ACCEPT"));
        assertThat(DOCKER.deletionsOfRulesWithComment("ateom:tz:sandbox-forward")).isEmpty();
    }

    @Test
    void quotedArgumentsAreUnquotedAndUnescaped() {
        assertThat(IptablesListing.words("-A X -m comment --comment \"somebody else's \\\"rule\\\"\" -j ACCEPT"))
                .containsExactly("-A", "X", "-m", "comment", "--comment", "somebody else's \"rule\"", "-j", "ACCEPT");
    }

    @Test
    void aFinalUnconditionalDropOrRejectDropsByDefault() {
        IptablesListing rejecting = IptablesListing.parse("-P FORWARD ACCEPT\n-A FORWARD -i eth0 -j ACCEPT\n-A FORWARD -j REJECT\n");
        assertThat(rejecting.dropsByDefault("FORWARD")).isTrue();
        IptablesListing conditional = IptablesListing.parse("-P FORWARD ACCEPT\n-A FORWARD -i eth0 -j DROP\n");
        assertThat(conditional.dropsByDefault("FORWARD")).isFalse();
    }
}
