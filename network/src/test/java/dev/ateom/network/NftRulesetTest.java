package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

    private static final String SLOT = TestResources.text("slot-ruleset.nft");

    private static final String HOST = TestResources.text("host-table.nft");
}
