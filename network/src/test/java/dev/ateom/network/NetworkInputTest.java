package dev.ateom.network;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad options and bad requests are refused with the option or field named. */
class NetworkInputTest {
    @Test
    void badDaemonOptionsNameTheOption() {
        NetworkConfig defaults = NetworkConfig.defaults();
        assertThat(option(() -> defaults.withPrefix("Ateom"))).isEqualTo("network-prefix");
        assertThat(option(() -> defaults.withPrefix("toolongprefix"))).isEqualTo("network-prefix");
        assertThat(option(() -> defaults.withPool(Ipv4Cidr.parse("100.72.0.0/30")))).isEqualTo("network-pool");
        assertThat(option(() -> defaults.withPool(Ipv4Cidr.parse("10.0.0.0/7")))).isEqualTo("network-pool");
        assertThat(option(() -> NetworkConfig.parsePool("100.72.0.1/16"))).isEqualTo("network-pool");
        assertThat(option(() -> NetworkConfig.parsePool("not-a-cidr"))).isEqualTo("network-pool");
        assertThat(option(() -> defaults.withReadySlots(-1))).isEqualTo("network-pool-ready");
        assertThat(option(() -> defaults.withMaxPublishedPorts(5000))).isEqualTo("network-max-ports");
        assertThat(option(() -> defaults.withReuseDelay(Duration.ofSeconds(-1)))).isEqualTo("network-reuse-delay");
        assertThat(option(() -> defaults.withRoutedInterfaces(Set.of("a b")))).isEqualTo("network-routed-interfaces");
        assertThat(defaults.capacity()).isEqualTo(16384);
    }

    @Test
    void badEgressEntriesNameTheirIndex() {
        assertThatThrownBy(() -> EgressPolicy.parse("network.egress", List.of("203.0.113.0/24", "10.0.0.1/8"), List.of()))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("network.egress.allow[1]");
                    assertThat(e.reason()).contains("host bits");
                });
        assertThatThrownBy(() -> EgressPolicy.parse("network.egress", List.of(), List.of("fd00::/8")))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> assertThat(e.field()).isEqualTo("network.egress.deny[0]"));
        assertThatThrownBy(() -> EgressPolicy.parse("network.egress", Collections.nCopies(EgressPolicy.MAX_ENTRIES + 1, "203.0.113.7"), List.of()))
                .isInstanceOfSatisfying(InvalidNetworkInputException.class, e -> assertThat(e.field()).isEqualTo("network.egress.allow"));
    }

    @Test
    void slotNamesRoundTripAndForeignNamesDoNot() {
        SlotName name = new SlotName("ateom", 12);
        assertThat(name.namespace()).isEqualTo("ateom-s12");
        assertThat(name.hostInterface()).isEqualTo("ateom-h12");
        assertThat(SlotName.parse("ateom", "ateom-s12")).contains(name);
        assertThat(SlotName.parse("ateom", "ateom-h12")).contains(name);
        assertThat(SlotName.parse("ateom", "ateom-s012")).isEmpty();
        assertThat(SlotName.parse("ateom", "ateomx-s1")).isEmpty();
        assertThat(SlotName.parse("ateom", "ateom-host")).isEmpty();
        assertThat(SlotAddresses.of(Ipv4Cidr.parse("100.72.0.0/16"), 3))
                .isEqualTo(new SlotAddresses(Ipv4Cidr.parse("100.72.0.12/30"), Ipv4Address.parse("100.72.0.13"), Ipv4Address.parse("100.72.0.14")));
    }

    @Test
    void slotNumbersGoRoundAndRestAfterRelease() throws InterruptedException {
        SlotIndexes indexes = new SlotIndexes(3, Duration.ofMillis(200));
        assertThat(List.of(indexes.take().getAsInt(), indexes.take().getAsInt())).containsExactly(0, 1);
        indexes.release(0);
        assertThat(indexes.take()).hasValue(2);
        assertThat(indexes.take()).isEmpty(); // 0 rests
        Thread.sleep(250);
        assertThat(indexes.take()).hasValue(0);
    }

    @Test
    void theGuestKernelArgumentSpellsTheConstantAddressing() {
        assertThat(GuestNetwork.kernelIpArgument()).isEqualTo("ip=169.254.0.21::169.254.0.22:255.255.255.252::eth0:off");
        assertThat(GuestNetwork.GUEST_MAC).hasToString("02:00:a9:fe:00:15");
        assertThat(GuestNetwork.GATEWAY_MAC).hasToString("02:00:a9:fe:00:16");
    }

    private static String option(Runnable make) {
        try {
            make.run();
            return "accepted";
        } catch (NetworkConfigException e) {
            return e.option();
        }
    }
}
