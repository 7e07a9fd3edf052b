package dev.ateom.network;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The daemon's own table in the host namespace ({@code table ip <prefix>}): it matches only the daemon's interfaces
 * ({@code <prefix>-h*}) and pool, and is the only table the daemon ever writes, so a host firewall and other
 * software's rules stay as they are.
 *
 * <ul>
 *   <li>output: TCP to 127.0.0.1 on a published host port goes to the slot's address and the guest port (the slot
 *       then forwards it to the guest); route_localnet on the daemon's veths lets a loopback-sourced packet leave
 *       through them, and postrouting masquerades it to the veth's address so the guest can answer.</li>
 *   <li>postrouting: the pool leaving through any other interface is masqueraded, except through the configured
 *       routed interfaces, whose peers route the pool back.</li>
 *   <li>forward: no traffic between slots, nothing into a slot but answers; outgoing SYNs get an MSS that fits the
 *       route's MTU.</li>
 *   <li>input: a slot reaches no service of the host, except answers to the host's own connections.</li>
 * </ul>
 */
final class HostRuleset {
    private HostRuleset() {
    }

    static String create(String table, Ipv4Cidr pool, Set<String> routedInterfaces) {
        String slots = "\"" + table + "-h*\"";
        return "add table ip " + table + "\n"
                + "delete table ip " + table + "\n"
                + "table ip " + table + " {\n"
                + "\tmap published_ports {\n"
                + "\t\ttype inet_service : ipv4_addr . inet_service\n"
                + "\t}\n\n"
                + "\tset routed_interfaces {\n"
                + "\t\ttype ifname\n"
                + (routedInterfaces.isEmpty() ? "" : "\t\telements = { "
                        + String.join(", ", new TreeSet<>(routedInterfaces).stream().map(n -> "\"" + n + "\"").toList()) + " }\n")
                + "\t}\n\n"
                + "\tchain output {\n"
                + "\t\ttype nat hook output priority -100; policy accept;\n"
                + "\t\tip daddr 127.0.0.1 dnat ip to tcp dport map @published_ports\n"
                + "\t}\n\n"
                + "\tchain postrouting {\n"
                + "\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
                + "\t\toifname " + slots + " ip saddr 127.0.0.0/8 masquerade\n"
                + "\t\tip saddr " + pool + " oifname != " + slots + " oifname != @routed_interfaces masquerade\n"
                + "\t}\n\n"
                + "\tchain forward {\n"
                + "\t\ttype filter hook forward priority filter; policy accept;\n"
                + "\t\tiifname " + slots + " oifname " + slots + " drop\n"
                + "\t\toifname " + slots + " ct state established,related accept\n"
                + "\t\toifname " + slots + " drop\n"
                + "\t\tiifname " + slots + " tcp flags syn / syn,rst tcp option maxseg size set rt mtu\n"
                + "\t}\n\n"
                + "\tchain input {\n"
                + "\t\ttype filter hook input priority filter; policy accept;\n"
                + "\t\tiifname " + slots + " ct state established,related accept\n"
                + "\t\tiifname " + slots + " drop\n"
                + "\t}\n"
                + "}\n";
    }

    /** Deletes the table if it exists. */
    static String delete(String table) {
        return "add table ip " + table + "\ndelete table ip " + table + "\n";
    }

    static String addPorts(String table, SlotAddresses addresses, List<PublishedPort> ports) {
        if (ports.isEmpty()) {
            return "";
        }
        return "add element ip " + table + " published_ports { " + String.join(", ", ports.stream()
                .map(p -> p.hostPort() + " : " + addresses.slot() + " . " + p.guestPort()).toList()) + " }\n";
    }

    static String deletePorts(String table, List<PublishedPort> ports) {
        if (ports.isEmpty()) {
            return "";
        }
        return "delete element ip " + table + " published_ports { " + String.join(", ", ports.stream()
                .map(p -> String.valueOf(p.hostPort())).toList()) + " }\n";
    }
}
