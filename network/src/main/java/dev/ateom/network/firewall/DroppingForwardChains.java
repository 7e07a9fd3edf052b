package dev.ateom.network.firewall;

import dev.ateom.network.nft.Nftables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the forward chains of the calling thread's network namespace that drop forwarded traffic by default, in
 * nftables (its own tables and those iptables-nft manages, e.g. Docker's {@code ip filter/FORWARD} with policy drop,
 * firewalld's {@code inet firewalld/filter_FORWARD} ending in a reject) and in iptables-legacy. Reads only: nothing is
 * created, not even an empty legacy table (its listing is asked for only when the kernel already has one).
 */
public final class DroppingForwardChains {
    /** The tables iptables-nft creates; a chain named like a built-in one there is iptables'. */
    private static final Set<String> IPTABLES_TABLES = Set.of("filter", "nat", "mangle", "raw", "security");
    private static final String IPTABLES_FORWARD = "FORWARD";
    private static final String DOCKER_USER = "DOCKER-USER";
    private static final Path LEGACY_TABLES = Path.of("/proc/thread-self/net/ip_tables_names");

    private DroppingForwardChains() {
    }

    /** The chains that drop by default, except those of the daemon's own table {@code ip <ownTable>}. */
    public static List<DroppingForwardChain> find(String ownTable) throws IOException {
        List<NftChain> chains = NftListing.chains(Nftables.runListingWithHandles("list ruleset"));
        List<DroppingForwardChain> found = new ArrayList<>(inNftables(chains, ownTable));
        legacyForward().ifPresent(found::add);
        return found;
    }

    /** The nftables part, a pure function of the listing. */
    static List<DroppingForwardChain> inNftables(List<NftChain> chains, String ownTable) {
        List<DroppingForwardChain> found = new ArrayList<>();
        for (NftChain chain : chains) {
            boolean ipv4 = chain.family().equals("ip") || chain.family().equals("inet");
            boolean own = chain.family().equals("ip") && chain.table().equals(ownTable);
            if (!ipv4 || own || !chain.dropsForwardedByDefault()) {
                continue;
            }
            if (isIptables(chain)) {
                boolean dockerUser = chains.stream().anyMatch(c -> c.family().equals("ip") && c.table().equals(chain.table())
                        && c.name().equals(DOCKER_USER));
                found.add(new DroppingForwardChain(FirewallBackend.IPTABLES_NFT, "ip", chain.table(), chain.name(),
                        dockerUser ? DOCKER_USER : chain.name()));
            } else {
                found.add(new DroppingForwardChain(FirewallBackend.NFTABLES, chain.family(), chain.table(), chain.name(), chain.name()));
            }
        }
        return found;
    }

    static boolean isIptables(NftChain chain) {
        return chain.family().equals("ip") && IPTABLES_TABLES.contains(chain.table()) && chain.name().equals(IPTABLES_FORWARD);
    }

    /** Whether the kernel has a legacy (x_tables) {@code filter} table in this namespace. */
    static boolean legacyFilterExists() throws IOException {
        return Files.exists(LEGACY_TABLES) && Files.readAllLines(LEGACY_TABLES).contains("filter");
    }

    private static Optional<DroppingForwardChain> legacyForward() throws IOException {
        if (!legacyFilterExists()) {
            return Optional.empty();
        }
        Optional<Iptables> legacy = Iptables.find(FirewallBackend.IPTABLES_LEGACY);
        if (legacy.isEmpty()) {
            return Optional.empty();
        }
        IptablesListing filter = legacy.get().list("filter");
        if (!filter.dropsByDefault(IPTABLES_FORWARD)) {
            return Optional.empty();
        }
        return Optional.of(new DroppingForwardChain(FirewallBackend.IPTABLES_LEGACY, "ip", "filter", IPTABLES_FORWARD,
                filter.hasChain(DOCKER_USER) ? DOCKER_USER : IPTABLES_FORWARD));
    }
}
