package dev.ateom.network;

import dev.ateom.network.nft.NftException;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.LibC;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules as the kernel holds them (listed back with nft), verbatim: what the README shows. */
class NftRulesetTest {
    private static TestNetwork network;
    private static NetworkSlots slots;

    @BeforeAll
    static void createHost() throws IOException {
        network = TestNetwork.create();
        slots = network.openSlots(network.config(0));
    }

    @AfterAll
    static void removeHost() throws IOException {
        network.close(); // fails if anything with the test's prefix is left
    }

    @Test
    void oneSlotsRulesetVerbatim() throws IOException {
        Slot slot = slots.acquire("sbx-rules", new NetworkPolicy(
                new EgressPolicy(List.of(Ipv4Cidr.parse("10.1.0.0/16")), List.of(Ipv4Cidr.parse("198.51.100.0/24"))),
                List.of(PortRequest.guest(8080))));
        try (NetNamespace inside = NetNamespace.named(slot.name())) {
            String listed = inside.call(() -> Nftables.run("list ruleset"));
            System.out.println("--- ruleset of slot " + slot.name() + "\n" + listed);
            assertThat(listed).isEqualTo(SLOT.replace("@SLOT@", slot.slotAddress().toString()));
        } finally {
            slots.release(slot);
        }
    }

    @Test
    void theHostTableVerbatim() throws IOException {
        Slot slot = slots.acquire("sbx-rules", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        try {
            String listed = network.inHost(() -> Nftables.run("list table ip " + network.prefix()));
            System.out.println("--- host table\n" + listed);
            assertThat(listed).isEqualTo(HOST.replace("@P@", network.prefix()).replace("@SLOT@", slot.slotAddress().toString())
                    .replace("@PORT@", String.valueOf(slot.publishedPorts().getFirst().hostPort())));
        } finally {
            slots.release(slot);
        }
    }

    /**
     * libnftables select(2)s on its netlink socket, and glibc aborts the process for a descriptor of 1024 or more:
     * with that many open, rulesets still apply and list the same (through the nft binary), and the JVM lives.
     */
    @Test
    void aProcessWithMoreThan1024OpenDescriptorsStillAppliesAndListsRulesets() throws IOException {
        List<Integer> held = new ArrayList<>();
        try {
            for (int i = 0; i < 1100; i++) {
                held.add(LibC.open("/dev/null", LibC.O_RDONLY | LibC.O_CLOEXEC, 0));
            }
            assertThat(held.getLast()).isGreaterThanOrEqualTo(1024);
            Slot slot = slots.acquire("sbx-many-fds", new NetworkPolicy(
                    new EgressPolicy(List.of(Ipv4Cidr.parse("10.1.0.0/16")), List.of(Ipv4Cidr.parse("198.51.100.0/24"))),
                    List.of(PortRequest.guest(8080))));
            try (NetNamespace inside = NetNamespace.named(slot.name())) {
                assertThat(inside.call(() -> Nftables.run("list ruleset")))
                        .isEqualTo(SLOT.replace("@SLOT@", slot.slotAddress().toString()));
                assertThat(inside.call(() -> Nftables.runJson("list tables"))).startsWith("{\"nftables\"");
                assertThatThrownBy(() -> inside.call(() -> Nftables.run("list table ip no-such-table")))
                        .isInstanceOf(NftException.class).hasMessageContaining("no-such-table");
            } finally {
                slots.release(slot);
            }
        } finally {
            held.forEach(LibC::closeQuietly);
        }
    }

    private static final String SLOT = TestResources.text("slot-ruleset.nft");

    private static final String HOST = TestResources.text("host-table.nft");
}
