package dev.ateom.network;

import dev.ateom.network.netlink.AddressEntry;
import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.Sysctl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the host namespace can carry slots: the pool must not overlap any address or route of the host (other
 * than the daemon's own links), and what the daemon may not change but an operator should know is reported as
 * warnings: interfaces whose forwarding is off, and other tables that drop forwarded traffic.
 */
final class HostFit {
    private static final Pattern TABLE = Pattern.compile("^table (\\S+) (\\S+) \\{");
    private static final Pattern CHAIN = Pattern.compile("^\\s*chain (\\S+) \\{");
    private static final Pattern FORWARD_DROP = Pattern.compile("hook forward .*policy drop;");
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

    /** What may keep slots from reaching out, in the operator's words; empty when nothing was found. */
    static List<String> warnings(NetNamespace host, String prefix) throws IOException {
        return host.call(() -> {
            List<String> warnings = new ArrayList<>();
            try (RouteNetlink netlink = RouteNetlink.open()) {
                List<String> off = new ArrayList<>();
                for (LinkEntry link : netlink.links()) {
                    if (!link.name().equals("lo") && !isOurs(prefix, link.name())
                            && "0".equals(readQuietly(Sysctl.ipv4Interface(link.name(), "forwarding")))) {
                        off.add(link.name());
                    }
                }
                if (!off.isEmpty()) {
                    warnings.add("IPv4 forwarding is off on " + String.join(", ", off) + ": answers arriving there cannot reach sandboxes."
                            + " ateom turns forwarding on for its own veths only; enable it for the uplink"
                            + " (sysctl -w net.ipv4.conf.<interface>.forwarding=1) or globally (net.ipv4.ip_forward=1)");
                }
            }
            String chains;
            try {
                chains = Nftables.run("list chains");
            } catch (IOException e) {
                warnings.add("cannot list the host's nftables chains to look for forward chains that drop: " + e.getMessage());
                return warnings;
            }
            for (String chain : foreignForwardDropChains(chains, prefix)) {
                warnings.add("the forward chain " + chain + " drops forwarded traffic by default, sandbox traffic included;"
                        + " ateom never edits other tables: allow interfaces " + prefix + "-h* there (Docker: iptables -I DOCKER-USER -i "
                        + prefix + "-h+ -j ACCEPT; iptables -I DOCKER-USER -o " + prefix + "-h+ -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT)");
            }
            return warnings;
        });
    }

    /** {@code family table/chain} of base chains on the forward hook with policy drop, in tables other than ours. */
    static List<String> foreignForwardDropChains(String listing, String prefix) {
        List<String> chains = new ArrayList<>();
        String table = null;
        String chain = null;
        for (String line : listing.split("\n")) {
            Matcher tableLine = TABLE.matcher(line);
            Matcher chainLine = CHAIN.matcher(line);
            if (tableLine.find()) {
                table = tableLine.group(1) + " " + tableLine.group(2);
            } else if (chainLine.find()) {
                chain = chainLine.group(1);
            } else if (FORWARD_DROP.matcher(line).find() && table != null && !table.equals("ip " + prefix)) {
                chains.add(table + "/" + chain);
            }
        }
        return chains;
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
