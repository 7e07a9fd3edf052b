package dev.ateom.network.firewall;

import java.util.ArrayList;
import java.util.List;

/**
 * The two rules that let the daemon's sandbox traffic through a forward chain that drops by default, as narrow as it
 * goes: in from the daemon's veths ({@code <prefix>-h*}) with a source in the pool, and out to them with a destination
 * in the pool for answers only. Everything else the chain decides as before (the daemon's own table still drops
 * traffic between slots and new connections into them). Each carries a comment naming the prefix, by which the daemon
 * finds and removes its own rules, and only its own: other daemons and test runs use other prefixes.
 *
 * @param prefix the daemon's network prefix
 * @param pool   the slot pool, as CIDR text
 */
public record SandboxForwardRules(String prefix, String pool) {
    public String comment() {
        return "ateom:" + prefix + ":sandbox-forward";
    }

    /** The rules as nft statements, for a table of nftables' own. */
    public List<String> nftStatements() {
        String veths = "\"" + prefix + "-h*\"";
        String comment = " comment \"" + comment() + "\"";
        return List.of("iifname " + veths + " ip saddr " + pool + " counter accept" + comment,
                "oifname " + veths + " ip daddr " + pool + " ct state established,related counter accept" + comment);
    }

    /** The rules as iptables rule specifications (what follows {@code -I <chain>}). */
    public List<List<String>> iptablesSpecs() {
        String veths = prefix + "-h+";
        List<String> tail = List.of("-m", "comment", "--comment", comment(), "-j", "ACCEPT");
        List<String> out = new ArrayList<>(List.of("-i", veths, "-s", pool));
        out.addAll(tail);
        List<String> back = new ArrayList<>(List.of("-o", veths, "-d", pool, "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED"));
        back.addAll(tail);
        return List.of(List.copyOf(out), List.copyOf(back));
    }

    /** The commands that insert them into {@code chain}, for an operator who manages the firewall (shell syntax). */
    public List<String> commandsFor(DroppingForwardChain chain) {
        if (chain.backend() == FirewallBackend.NFTABLES) {
            return nftStatements().stream().map(s -> "nft insert rule " + chain.family() + " " + chain.table() + " " + chain.insertInto()
                    + " '" + s + "'").toList();
        }
        return iptablesSpecs().stream().map(spec -> chain.backend().label() + " -t " + chain.table() + " -I " + chain.insertInto() + " "
                + String.join(" ", spec)).toList();
    }
}
