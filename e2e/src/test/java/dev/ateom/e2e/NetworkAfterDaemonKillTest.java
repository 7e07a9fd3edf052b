package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.network.TestNetwork;
import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespaces;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Network slots across a {@code kill -9} of the daemon: a slot whose VM died with the daemon is reclaimed by the
 * next one (namespace, host veth), a running VM's slot is adopted and a stray one removed, and once the last sandbox
 * is deleted and the daemon stopped nothing with the daemon's prefix is left: no namespace, veth or nftables table.
 * The daemon's host is a namespace of the test's own ({@code --network-host-namespace}); no slots are kept ready, so
 * every slot namespace belongs to a sandbox.
 */
class NetworkAfterDaemonKillTest extends HostTest {
    private TestNetwork network;

    @BeforeEach
    void network() throws Exception { network = TestNetwork.create(); }

    @AfterEach
    void noNetworkLeft() throws Exception {
        host.close(); // the daemons stop before their host namespace goes
        network.close(); // fails when anything with the prefix is left
    }

    @Test
    void aSlotWhoseVmDiedWithTheDaemonIsReclaimed() throws Exception {
        DaemonProcess first = host.start(networked(DaemonOptions.NORMAL));
        String slot = first.api().post("/v1/sandboxes", networkedSpec("n1")).expect(201, "create").body()
                .path("sandbox").path("runtime").path("network").path("slot").asText();
        assertThat(slotNamespaces()).containsExactly(slot);
        first.kill9();
        assertThat(slotNamespaces()).as("nobody removed it: the daemon was killed").containsExactly(slot);

        DaemonProcess second = host.start(networked(DaemonOptions.NORMAL));
        RecoveryChecks.inState(second.api(), "n1", "FAILED");
        assertThat(slotNamespaces()).as("reclaimed at start").isEmpty();
        assertThat(hostLinks()).as("host veths").isEmpty();
        second.api().delete("/v1/sandboxes/n1").expect(204, "delete");
        second.close();
        assertThat(hostTables()).as("the daemon's host table goes with its last slot").isEmpty();
    }

    @Test
    void aRunningVmKeepsItsSlotAndAStraySlotIsRemoved() throws Exception {
        DaemonProcess first = host.start(networked(DaemonOptions.keepingChildren()));
        String slot = first.api().post("/v1/sandboxes", networkedSpec("n2")).expect(201, "create").body()
                .path("sandbox").path("runtime").path("network").path("slot").asText();
        first.kill9();
        NetNamespaces.create(network.prefix() + "-s60");

        DaemonProcess second = host.start(networked(DaemonOptions.keepingChildren()));
        JsonNode adopted = RecoveryChecks.inState(second.api(), "n2", "RUNNING");
        assertThat(adopted.path("runtime").path("network").path("slot").asText()).isEqualTo(slot);
        assertThat(slotNamespaces()).as("the stray slot is reclaimed, the adopted one kept").containsExactly(slot);
        second.api().delete("/v1/sandboxes/n2").expect(204, "delete");
        assertThat(slotNamespaces()).isEmpty();
        assertThat(hostLinks()).isEmpty();
        second.close();
        assertThat(hostTables()).isEmpty();
    }

    private DaemonOptions networked(DaemonOptions options) {
        return options.withFlags(List.of("--network", "true", "--network-prefix", network.prefix(),
                "--network-host-namespace", network.prefix() + "-host", "--network-pool", "100.72.0.0/24",
                "--network-pool-ready", "0", "--network-reuse-delay", "0"));
    }

    private ObjectNode networkedSpec(String id) throws Exception {
        ObjectNode spec = SandboxSpecs.create(host.root, id);
        spec.putObject("network").putArray("ports").addObject().put("guest", 8080);
        return spec;
    }

    private List<String> slotNamespaces() throws Exception {
        return NetNamespaces.list(network.prefix() + "-s");
    }

    /** The daemon's veths in its host namespace ({@code <prefix>-h<n>}). */
    private List<String> hostLinks() throws Exception {
        return network.inHost(() -> {
            try (RouteNetlink netlink = RouteNetlink.open()) {
                return netlink.links().stream().map(LinkEntry::name).filter(n -> n.startsWith(network.prefix() + "-h")).toList();
            }
        });
    }

    /** nftables tables named like the daemon's in its host namespace. */
    private List<String> hostTables() throws Exception {
        return network.inHost(() -> {
            List<String> found = new ArrayList<>();
            for (String line : Nftables.run("list tables").split("\n")) {
                if (line.strip().endsWith(" " + network.prefix())) found.add(line.strip());
            }
            return found;
        });
    }
}
