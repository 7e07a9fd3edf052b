package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A sandbox's policy on its slot: host ports reserved and mapped in the daemon's host table, the slot's egress and
 * port sets filled, a running sandbox's egress replaced, and the ports given back.
 */
final class SlotPolicies {
    private static final System.Logger LOG = System.getLogger(SlotPolicies.class.getName());

    private final NetNamespace host;
    private final String table;
    private final List<Ipv4Cidr> alwaysDenied;

    SlotPolicies(NetNamespace host, NetworkConfig config) {
        this.host = host;
        this.table = config.prefix();
        this.alwaysDenied = DefaultDenied.withPool(config.pool());
    }

    /**
     * Applies the policy to a slot: host ports reserved and mapped (one call in the host namespace), the slot's sets
     * filled (one transaction in the slot). A fresh slot's sets are empty, so this only adds elements: a transaction
     * that also removes set elements or rules took 12-19 ms in-process here against 2-4 ms for adding alone (nftables
     * waits for readers of what it removes). A ready slot has no VM attached, so its empty egress set lets nothing
     * through meanwhile. {@code fresh} false: the whole table is written (adopt).
     */
    void apply(Slot slot, String sandboxId, NetworkPolicy policy, boolean fresh) throws IOException {
        List<Ipv4Cidr> denied = EgressRanges.denied(policy.egress(), alwaysDenied);
        List<HostPortReservation> reservations = reservePorts(slot, policy.ports());
        try {
            List<PublishedPort> ports = new ArrayList<>();
            for (int i = 0; i < reservations.size(); i++) {
                ports.add(new PublishedPort(policy.ports().get(i).guestPort(), reservations.get(i).port()));
            }
            List<Integer> guestPorts = ports.stream().map(PublishedPort::guestPort).toList();
            String script = fresh
                    ? SlotRuleset.addElements(denied, guestPorts)
                    : SlotRuleset.create(slot.addresses(), denied, guestPorts);
            slot.namespace().call(() -> Nftables.run(script));
            slot.assign(sandboxId, policy, reservations, ports);
        } catch (IOException | RuntimeException e) {
            releasePorts(reservations, slot);
            throw e;
        }
    }

    /** Replaces the egress policy of a running sandbox in one transaction; from the next packet on it is in force. */
    void replaceEgress(Slot slot, EgressPolicy egress) throws IOException {
        List<Ipv4Cidr> denied = EgressRanges.denied(egress, alwaysDenied);
        slot.namespace().call(() -> Nftables.run(SlotRuleset.replaceEgress(denied)));
        slot.policy(slot.policy().withEgress(egress));
    }

    /** Holds a host loopback port per request and maps it to the slot, in one call in the host namespace. */
    private List<HostPortReservation> reservePorts(Slot slot, List<PortRequest> requests) throws IOException {
        if (requests.isEmpty()) {
            return List.of();
        }
        return host.call(() -> {
            List<HostPortReservation> held = HostPorts.reserve(requests);
            try {
                List<PublishedPort> ports = new ArrayList<>();
                for (int i = 0; i < held.size(); i++) {
                    ports.add(new PublishedPort(requests.get(i).guestPort(), held.get(i).port()));
                }
                Nftables.run(HostRuleset.addPorts(table, slot.addresses(), ports));
                return held;
            } catch (IOException | RuntimeException e) {
                held.forEach(HostPortReservation::close);
                throw e;
            }
        });
    }

    /** Unmaps and frees host ports; the first failure is returned (the ports are freed regardless). */
    IOException releasePorts(List<HostPortReservation> reservations, Slot slot) {
        IOException failure = null;
        if (!reservations.isEmpty()) {
            List<PublishedPort> mapped = reservations.stream().map(r -> new PublishedPort(0, r.port())).toList();
            try {
                host.call(() -> Nftables.run(HostRuleset.deletePorts(table, mapped)));
            } catch (IOException e) {
                failure = e;
                LOG.log(System.Logger.Level.WARNING, "network: host ports of slot {0} not unmapped: {1}", slot.name(), e.getMessage());
            }
        }
        reservations.forEach(HostPortReservation::close);
        return failure;
    }
}
