package dev.ateom.network;

import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The nftables table inside a slot's namespace. The guest's traffic is translated to the slot's veth address;
 * packets the guest starts towards a denied network are rejected (ICMP admin-prohibited, so a connect fails at once),
 * including packets of connections that were allowed when they started; host connections to published guest ports
 * are translated to the guest. Nothing else crosses the slot, and nothing reaches the slot itself but pings of the
 * gateway. The two sets are the only parts that change while a sandbox runs, each with one atomic transaction.
 */
final class SlotRuleset {
    static final String TABLE = "ateom";
    static final String VETH = "veth0";
    static final String TAP = "tap0";

    private SlotRuleset() {
    }

    /** The whole table, replacing any table of that name in one transaction. */
    static String create(SlotAddresses addresses, List<Ipv4Cidr> denied, Collection<Integer> guestPorts) {
        String guest = GuestNetwork.GUEST_ADDRESS.toString();
        return "add table ip " + TABLE + "\n"
                + "delete table ip " + TABLE + "\n"
                + "table ip " + TABLE + " {\n"
                + "\tset egress_deny {\n"
                + "\t\ttype ipv4_addr\n"
                + "\t\tflags interval\n"
                + elements(denied.stream().map(Ipv4Cidr::toString).toList())
                + "\t}\n\n"
                + "\tset published_ports {\n"
                + "\t\ttype inet_service\n"
                + elements(guestPorts.stream().sorted().map(String::valueOf).toList())
                + "\t}\n\n"
                + "\tchain prerouting {\n"
                + "\t\ttype nat hook prerouting priority dstnat; policy accept;\n"
                + "\t\tiifname \"" + VETH + "\" tcp dport @published_ports dnat ip to " + guest + "\n"
                + "\t}\n\n"
                + "\tchain postrouting {\n"
                + "\t\ttype nat hook postrouting priority srcnat; policy accept;\n"
                + "\t\toifname \"" + VETH + "\" ip saddr " + guest + " snat ip to " + addresses.slot() + "\n"
                + "\t}\n\n"
                + "\tchain forward {\n"
                + "\t\ttype filter hook forward priority filter; policy drop;\n"
                + "\t\tiifname \"" + TAP + "\" oifname \"" + VETH + "\" ct direction original ip daddr @egress_deny reject with icmp type admin-prohibited\n"
                + "\t\tct state established,related accept\n"
                + "\t\tiifname \"" + TAP + "\" oifname \"" + VETH + "\" ip saddr " + guest + " ct state new accept\n"
                + "\t\tiifname \"" + VETH + "\" oifname \"" + TAP + "\" ct status dnat ct state new accept\n"
                + "\t}\n\n"
                + "\tchain input {\n"
                + "\t\ttype filter hook input priority filter; policy drop;\n"
                + "\t\tiif \"lo\" accept\n"
                + "\t\tct state established,related accept\n"
                + "\t\tiifname \"" + TAP + "\" icmp type echo-request accept\n"
                + "\t\tiifname \"" + TAP + "\" reject with icmp type admin-prohibited\n"
                + "\t}\n"
                + "}\n";
    }

    /** Fills the empty sets of a fresh slot (adding only: see {@link NetworkSlots}). */
    static String addElements(List<Ipv4Cidr> denied, Collection<Integer> guestPorts) {
        String script = denied.isEmpty() ? "" : "add element ip " + TABLE + " egress_deny { "
                + String.join(", ", denied.stream().map(Ipv4Cidr::toString).toList()) + " }\n";
        return guestPorts.isEmpty() ? script : script + "add element ip " + TABLE + " published_ports { "
                + String.join(", ", guestPorts.stream().sorted().map(String::valueOf).toList()) + " }\n";
    }

    static String replaceEgress(List<Ipv4Cidr> denied) {
        return replaceSet("egress_deny", denied.stream().map(Ipv4Cidr::toString).toList());
    }

    private static String replaceSet(String set, List<String> values) {
        String flush = "flush set ip " + TABLE + " " + set + "\n";
        return values.isEmpty() ? flush : flush + "add element ip " + TABLE + " " + set + " { " + String.join(", ", values) + " }\n";
    }

    private static String elements(List<String> values) {
        return values.isEmpty() ? "" : "\t\telements = { " + values.stream().collect(Collectors.joining(", ")) + " }\n";
    }
}
