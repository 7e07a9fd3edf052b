package dev.ateom.network.firewall;

/**
 * Who owns a forward chain, and so how a rule gets into it: a table of nftables' own is written with libnftables, a
 * table iptables manages (Docker's, ufw's) only with the iptables binary of its backend, since rules written with nft
 * syntax into an iptables-nft table can make every later {@code iptables} call on it fail ("table is incompatible").
 */
public enum FirewallBackend {
    NFTABLES("nftables"),
    IPTABLES_NFT("iptables-nft"),
    IPTABLES_LEGACY("iptables-legacy");

    private final String label;

    FirewallBackend(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
