package dev.ateom.network.firewall;

/**
 * A base chain on the forward hook, in a table of someone else's, that drops what it does not accept (by policy or by
 * a final drop or reject), and so drops sandbox traffic unless told otherwise.
 *
 * @param backend    who owns the table, and so which tool writes to it
 * @param family     nftables family ({@code ip}, {@code inet}); {@code ip} for iptables
 * @param table      table name ({@code filter} for iptables)
 * @param chain      the base chain ({@code FORWARD} for iptables)
 * @param insertInto where rules that let traffic through belong: the chain itself, or Docker's {@code DOCKER-USER},
 *                   which its {@code FORWARD} jumps to first and which Docker keeps for its users
 */
public record DroppingForwardChain(FirewallBackend backend, String family, String table, String chain, String insertInto) {
    /** {@code ip filter/FORWARD (iptables-nft, rules in DOCKER-USER)}. */
    public String describe() {
        return family + " " + table + "/" + chain + " (" + backend.label() + (insertInto.equals(chain) ? "" : ", rules in " + insertInto) + ")";
    }
}
