package dev.ateom.network.firewall;

import dev.ateom.network.nft.Nftables;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Docker's {@code FORWARD} chain in the calling thread's network namespace, recognised by the {@code DOCKER-USER}
 * chain Docker keeps beside it, and its policy: what decides whether forwarded sandbox traffic passes a host where
 * Docker runs. Reads only.
 *
 * @param backend who holds Docker's tables (iptables-nft or iptables-legacy)
 * @param policy  the chain's policy as listed ({@code drop}, {@code accept})
 */
public record DockerForwardChain(FirewallBackend backend, String policy) {
    /** Docker's chain when Docker's tables are here; iptables-nft's are looked for first (Docker's default backend). */
    public static Optional<DockerForwardChain> find() throws IOException {
        List<NftChain> chains = NftListing.chains(Nftables.runListingWithHandles("list ruleset"));
        boolean dockerUser = chains.stream().anyMatch(c -> c.family().equals("ip") && c.table().equals("filter") && c.name().equals("DOCKER-USER"));
        if (dockerUser) {
            return chains.stream().filter(c -> c.family().equals("ip") && c.table().equals("filter") && c.name().equals("FORWARD"))
                    .findFirst().map(forward -> new DockerForwardChain(FirewallBackend.IPTABLES_NFT, forward.policy()));
        }
        if (!DroppingForwardChains.legacyFilterExists()) {
            return Optional.empty();
        }
        Optional<Iptables> legacy = Iptables.find(FirewallBackend.IPTABLES_LEGACY);
        if (legacy.isEmpty()) {
            return Optional.empty();
        }
        IptablesListing filter = legacy.get().list("filter");
        if (!filter.hasChain("DOCKER-USER") || filter.policy("FORWARD") == null) {
            return Optional.empty();
        }
        return Optional.of(new DockerForwardChain(FirewallBackend.IPTABLES_LEGACY, filter.policy("FORWARD").toLowerCase(Locale.ROOT)));
    }
}
