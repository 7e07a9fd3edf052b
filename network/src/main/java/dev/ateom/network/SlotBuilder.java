package dev.ateom.network;

import dev.ateom.network.netlink.ConntrackNetlink;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.os.Sysctl;
import dev.ateom.network.os.TapDevice;
import java.io.IOException;
import java.util.List;

/**
 * Builds and tears down slots with netlink and libnftables from inside the namespaces concerned: no process is
 * started. A slot is: namespace {@code <prefix>-s<n>}; veth {@code <prefix>-h<n>} in the host namespace whose peer
 * {@code veth0} is created directly inside the slot; the TAP {@code tap0} opened inside the slot; addresses, routes,
 * sysctls; the slot's nftables table.
 */
final class SlotBuilder {
    private final NetNamespace host;
    private final String prefix;
    private final Ipv4Cidr pool;

    SlotBuilder(NetNamespace host, String prefix, Ipv4Cidr pool) {
        this.host = host;
        this.prefix = prefix;
        this.pool = pool;
    }

    /**
     * A complete slot whose sets are still empty (filled when it is assigned, before any VM is attached to its TAP);
     * on failure nothing of it is left.
     */
    Slot build(int index) throws IOException {
        SlotName name = new SlotName(prefix, index);
        SlotAddresses addresses = SlotAddresses.of(pool, index);
        NetNamespace namespace = null;
        TapDevice tap = null;
        try {
            NetNamespaces.create(name.namespace());
            namespace = NetNamespace.named(name.namespace());
            int slotFd = namespace.fd();
            host.call(() -> {
                buildHostSide(name, addresses, slotFd);
                return null;
            });
            tap = namespace.call(() -> buildInside(addresses));
            return new Slot(name, addresses, namespace, tap);
        } catch (IOException | RuntimeException e) {
            if (tap != null) {
                tap.close();
            }
            if (namespace != null) {
                namespace.close();
            }
            try {
                destroy(name);
            } catch (IOException | RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private static void buildHostSide(SlotName name, SlotAddresses addresses, int slotNamespaceFd) throws IOException {
        try (RouteNetlink netlink = RouteNetlink.open()) {
            String veth = name.hostInterface();
            netlink.createVeth(veth, SlotRuleset.VETH, slotNamespaceFd);
            int index = netlink.linkIndex(veth);
            Sysctl.write(Sysctl.ipv6Interface(veth, "disable_ipv6"), "1");
            // a published port's packet leaves 127.0.0.1 through this veth (see HostRuleset)
            Sysctl.write(Sysctl.ipv4Interface(veth, "route_localnet"), "1");
            Sysctl.write(Sysctl.ipv4Interface(veth, "forwarding"), "1");
            netlink.addAddress(index, addresses.host().bits(), SlotAddresses.PREFIX_LENGTH);
            netlink.setUp(index);
        }
    }

    private static TapDevice buildInside(SlotAddresses addresses) throws IOException {
        Sysctl.write("net/ipv6/conf/all/disable_ipv6", "1");
        Sysctl.write("net/ipv6/conf/default/disable_ipv6", "1");
        Sysctl.write("net/ipv4/ip_forward", "1");
        TapDevice tap = TapDevice.create(SlotRuleset.TAP);
        try (RouteNetlink netlink = RouteNetlink.open()) {
            netlink.setUp(netlink.linkIndex("lo"));
            int veth = netlink.linkIndex(SlotRuleset.VETH);
            netlink.addAddress(veth, addresses.slot().bits(), SlotAddresses.PREFIX_LENGTH);
            netlink.setUp(veth);
            int tapIndex = netlink.linkIndex(SlotRuleset.TAP);
            netlink.setMac(tapIndex, GuestNetwork.GATEWAY_MAC.octets());
            netlink.addAddress(tapIndex, GuestNetwork.GATEWAY_ADDRESS.bits(), GuestNetwork.PREFIX_LENGTH);
            netlink.setUp(tapIndex);
            netlink.addDefaultRoute(addresses.host().bits());
            Nftables.run(SlotRuleset.create(addresses, List.of(), List.of()));
            return tap;
        } catch (IOException | RuntimeException e) {
            tap.close();
            throw e;
        }
    }

    /**
     * Removes everything of slot {@code name} that exists: the veth pair, the host's connection-tracking entries of
     * its address, the namespace (and with it the TAP and the slot's own rules and entries). Idempotent.
     */
    void destroy(SlotName name) throws IOException {
        SlotAddresses addresses = SlotAddresses.of(pool, name.index());
        host.call(() -> {
            try (RouteNetlink netlink = RouteNetlink.open(); ConntrackNetlink conntrack = ConntrackNetlink.open()) {
                netlink.deleteLink(name.hostInterface());
                // after the link is gone no new entry can appear for this address
                conntrack.deleteInvolving(addresses.slot().bits());
            }
            return null;
        });
        NetNamespaces.delete(name.namespace());
    }
}
