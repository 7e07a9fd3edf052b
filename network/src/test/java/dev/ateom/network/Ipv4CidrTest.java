package dev.ateom.network;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class Ipv4CidrTest {
    @Test
    void parsesNetworksAndBareAddresses() {
        assertThat(Ipv4Cidr.parse("203.0.113.0/24")).hasToString("203.0.113.0/24");
        assertThat(Ipv4Cidr.parse("203.0.113.7").prefixLength()).isEqualTo(32);
        assertThat(Ipv4Cidr.parse("0.0.0.0/0").size()).isEqualTo(1L << 32);
        assertThat(Ipv4Cidr.parse("255.255.255.255/32").last()).isEqualTo(0xffff_ffffL);
        assertThat(Ipv4Cidr.parse("10.0.0.0/8").contains(Ipv4Address.parse("10.255.0.1"))).isTrue();
        assertThat(Ipv4Cidr.parse("10.0.0.0/8").overlaps(Ipv4Cidr.parse("10.3.0.0/16"))).isTrue();
        assertThat(Ipv4Cidr.parse("10.0.0.0/8").overlaps(Ipv4Cidr.parse("11.0.0.0/8"))).isFalse();
    }

    @Test
    void refusesWhatItWouldHaveToGuess() {
        assertThatThrownBy(() -> Ipv4Cidr.parse("10.1.2.3/8")).hasMessageContaining("host bits set").hasMessageContaining("10.0.0.0/8");
        assertThatThrownBy(() -> Ipv4Cidr.parse("2001:db8::/32")).hasMessageContaining("IPv6");
        assertThatThrownBy(() -> Ipv4Cidr.parse("10.0.0.0/33")).hasMessageContaining("0-32");
        assertThatThrownBy(() -> Ipv4Cidr.parse("10.0.0.0/")).hasMessageContaining("prefix length");
        assertThatThrownBy(() -> Ipv4Cidr.parse("10.0.0/8")).hasMessageContaining("not an IPv4 address");
        assertThatThrownBy(() -> Ipv4Cidr.parse("10.0.0.256")).hasMessageContaining("256");
        assertThatThrownBy(() -> Ipv4Cidr.parse("010.0.0.0/8")).hasMessageContaining("not an IPv4 address");
        assertThatThrownBy(() -> Ipv4Cidr.parse(" ")).hasMessageContaining("empty");
    }
}
