package dev.ateom.network.firewall;

import dev.ateom.network.nft.Nftables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Puts the daemon's {@link SandboxForwardRules} into other software's forward chains and takes them out again, in the
 * calling thread's network namespace. It never changes a chain's policy, never flushes, never touches a rule without
 * the daemon's comment for its prefix.
 */
public final class ForwardExemptions {
    private final SandboxForwardRules rules;

    public ForwardExemptions(SandboxForwardRules rules) {
        this.rules = rules;
    }

    public SandboxForwardRules rules() {
        return rules;
    }

    /** Inserts the rules at the top of {@code chain}'s rule target (before anything that could drop). */
    public void insert(DroppingForwardChain chain) throws IOException {
        if (chain.backend() == FirewallBackend.NFTABLES) {
            StringBuilder script = new StringBuilder();
            for (String statement : rules.nftStatements()) {
                script.append("insert rule ").append(chain.family()).append(' ').append(chain.table()).append(' ')
                        .append(chain.insertInto()).append(' ').append(statement).append('\n');
            }
            Nftables.run(script.toString());
            return;
        }
        Iptables iptables = Iptables.find(chain.backend()).orElseThrow(() -> new IOException(chain.backend().label()
                + " is not installed (Debian package iptables), so the rules cannot be put into " + chain.describe()));
        for (List<String> spec : rules.iptablesSpecs()) {
            List<String> arguments = new ArrayList<>(List.of("-t", chain.table(), "-I", chain.insertInto(), "1"));
            arguments.addAll(spec);
            iptables.run(arguments);
        }
    }

    /**
     * Removes every rule with the daemon's comment from every table (those of an earlier run that died included);
     * returns where rules were removed ({@code ip filter/DOCKER-USER (iptables-nft)}).
     */
    public List<String> removeAll() throws IOException {
        List<String> removed = new ArrayList<>();
        List<NftChain> chains = NftListing.chains(Nftables.runListingWithHandles("list ruleset"));
        for (NftChain chain : chains) {
            for (NftRule rule : chain.rules()) {
                if (rule.hasComment(rules.comment())) {
                    Nftables.run("delete rule " + chain.family() + " " + chain.table() + " " + chain.name() + " handle " + rule.handle() + "\n");
                    removed.add(chain.family() + " " + chain.table() + "/" + chain.name() + " (nftables)");
                }
            }
        }
        // iptables-nft keeps comments where nft cannot show them: its own listing is asked, for its filter table only
        if (chains.stream().anyMatch(c -> c.family().equals("ip") && c.table().equals("filter"))) {
            removed.addAll(removeFromIptables(Iptables.find(FirewallBackend.IPTABLES_NFT)));
        }
        if (DroppingForwardChains.legacyFilterExists()) {
            removed.addAll(removeFromIptables(Iptables.find(FirewallBackend.IPTABLES_LEGACY)));
        }
        return removed.stream().distinct().toList();
    }

    private List<String> removeFromIptables(Optional<Iptables> found) throws IOException {
        if (found.isEmpty()) {
            return List.of();
        }
        Iptables iptables = found.get();
        List<String> removed = new ArrayList<>();
        for (List<String> deletion : iptables.list("filter").deletionsOfRulesWithComment(rules.comment())) {
            List<String> arguments = new ArrayList<>(List.of("-t", "filter"));
            arguments.addAll(deletion);
            iptables.run(arguments);
            removed.add("ip filter/" + deletion.get(1) + " (" + iptables.backend().label() + ")");
        }
        return removed;
    }
}
