package dev.ateom.network;

import dev.ateom.network.netlink.AddressEntry;
import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.Sysctl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the host namespace can carry slots: the pool must not overlap any address or route of the host (other
 * than the daemon's own links), and interfaces whose forwarding is off (which the daemon does not change) are
 * reported as warnings. Forward chains that drop are {@link HostFirewall}'s.
 */
final class HostFit {
    private static final List<Ipv4Cidr> NEVER_POOLS = List.of(Ipv4Cidr.parse("0.0.0.0/8"), Ipv4Cidr.parse("127.0.0.0/8"),
            Ipv4Cidr.parse("169.254.0.0/16"), Ipv4Cidr.parse("224.0.0.0/3"));

    private HostFit() {
    }

    /** Refuses a pool that collides with the host, naming what it collides with. */
    static void checkPool(NetNamespace host, String prefix, Ipv4Cidr pool) throws IOException {
        for (Ipv4Cidr never : NEVER_POOLS) {
            if (pool.overlaps(never)) {
                throw new NetworkConfigException("network-pool", pool + " overlaps " + never + ", which no slot can use");
            }
        }
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            throw new NetworkSetupException("/dev/net/tun is missing: the kernel has no TUN/TAP support (module tun)", null);
        }
        String collision = host.call(() -> {
            try (RouteNetlink netlink = RouteNetlink.open()) {
                Map<Integer, String> names = new HashMap<>();
                for (LinkEntry link : netlink.links()) {
                    names.put(link.index(), link.name());
                }
                for (AddressEntry address : netlink.ipv4Addresses()) {
                    String name = names.getOrDefault(address.interfaceIndex(), "?");
                    if (!isOurs(prefix, name) && pool.contains(new Ipv4Address(address.address()))) {
                        return "the address " + new Ipv4Address(address.address()) + "/" + address.prefixLength() + " of " + name;
                    }
                }
                for (RouteEntry route : netlink.ipv4Routes()) {
                    String name = names.getOrDefault(route.outputInterface(), "");
                    if (route.prefixLength() == 0 || isOurs(prefix, name)) {
                        continue;
                    }
                    Ipv4Cidr destination = new Ipv4Cidr(new Ipv4Address(route.destination() & Ipv4Cidr.mask(route.prefixLength())), route.prefixLength());
                    if (destination.overlaps(pool)) {
                        return "the route " + destination + (name.isEmpty() ? "" : " dev " + name) + " (table " + route.table() + ")";
                    }
                }
                return null;
            }
        });
        if (collision != null) {
            throw new NetworkConfigException("network-pool", pool + " overlaps " + collision + " in the host's network namespace; choose another pool");
        }
    }

    /** Interfaces whose IPv4 forwarding is off, in the operator's words; empty when there are none. */
    static List<String> forwardingOffWarnings(NetNamespace host, String prefix) throws IOException {
        return host.call(() -> {
            List<String> off = new ArrayList<>();
            try (RouteNetlink netlink = RouteNetlink.open()) {
                for (LinkEntry link : netlink.links()) {
                    if (!link.name().equals("lo") && !isOurs(prefix, link.name())
                            && "0".equals(readQuietly(Sysctl.ipv4Interface(link.name(), "forwarding")))) {
                        off.add(link.name());
                    }
                }
            }
            if (off.isEmpty()) {
                return List.of();
            }
            return List.of("IPv4 forwarding is off on " + String.join(", ", off) + ": answers arriving there cannot reach sandboxes."
                    + " ateom turns forwarding on for its own veths only; enable it for the uplink"
                    + " (sysctl -w net.ipv4.conf.<interface>.forwarding=1) or globally (net.ipv4.ip_forward=1)");
        });
    }

    private static boolean isOurs(String prefix, String interfaceName) {
        return SlotName.parse(prefix, interfaceName).isPresent();
    }

    private static String readQuietly(String key) {
        try {
            return Sysctl.read(key);
        } catch (IOException e) {
            return null;
        }
    }
}
