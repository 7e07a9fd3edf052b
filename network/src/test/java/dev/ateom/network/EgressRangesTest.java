package dev.ateom.network;

import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The longest matching rule decides; equal lengths: deny, then allow, then the always-denied ranges. */
class EgressRangesTest {
    private static final List<Ipv4Cidr> DEFAULTS = DefaultDenied.withPool(Ipv4Cidr.parse("100.72.0.0/16"));

    @Test
    void theDefaultPolicyDeniesExactlyTheAlwaysDeniedRanges() {
        assertThat(denied(List.of(), List.of())).containsExactly("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
                "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/3");
    }

    @Test
    void aMoreSpecificAllowOpensOnlyItself() {
        assertThat(denied(List.of("10.1.0.0/16"), List.of())).contains("10.0.0.0/16", "10.2.0.0/15", "10.128.0.0/9")
                .doesNotContain("10.0.0.0/8", "10.1.0.0/16");
    }

    @Test
    void allowingEverythingOpensNothingThatIsAlwaysDenied() {
        assertThat(denied(List.of("0.0.0.0/0"), List.of())).isEqualTo(denied(List.of(), List.of()));
    }

    @Test
    void denyAllAllowOne() {
        List<Ipv4Cidr> cidrs = denied(List.of("203.0.113.7"), List.of("0.0.0.0/0")).stream().map(Ipv4Cidr::parse).toList();
        assertThat(cidrs).noneMatch(c -> c.contains(Ipv4Address.parse("203.0.113.7")));
        assertThat(cidrs.stream().mapToLong(Ipv4Cidr::size).sum()).as("every address but one").isEqualTo((1L << 32) - 1);
    }

    @Test
    void theMetadataAddressNeedsItsOwnAllow() {
        assertThat(denied(List.of("169.254.0.0/16"), List.of())).contains("169.254.169.254/32");
        assertThat(denied(List.of("169.254.0.0/16", "169.254.169.254/32"), List.of())).noneMatch(c -> c.startsWith("169.254."));
    }

    @Test
    void anEqualDenyBeatsAnEqualAllowAndTheNarrowerRuleWins() {
        assertThat(denied(List.of("198.51.100.0/24"), List.of("198.51.100.0/24"))).contains("198.51.100.0/24");
        assertThat(denied(List.of("198.51.100.0/25"), List.of("198.51.100.0/24"))).contains("198.51.100.128/25")
                .doesNotContain("198.51.100.0/24", "198.51.100.0/25");
        assertThat(denied(List.of("10.0.0.0/8"), List.of())).noneMatch(c -> c.startsWith("10."));
    }

    @Test
    void theReturnedNetworksAreSortedDisjointAndMinimal() {
        List<String> cidrs = denied(List.of("10.1.0.0/16", "203.0.113.7"), List.of("198.51.100.0/24", "0.0.0.0/0"));
        long previousLast = -1;
        for (String text : cidrs) {
            Ipv4Cidr cidr = Ipv4Cidr.parse(text);
            assertThat(cidr.first()).isGreaterThan(previousLast);
            previousLast = cidr.last();
        }
    }

    private static List<String> denied(List<String> allow, List<String> deny) {
        return EgressRanges.denied(EgressPolicy.parse("network.egress", allow, deny), DEFAULTS).stream().map(Ipv4Cidr::toString).toList();
    }
}
