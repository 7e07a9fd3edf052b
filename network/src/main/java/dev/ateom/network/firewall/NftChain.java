package dev.ateom.network.firewall;

import java.util.List;

/**
 * One chain of an nftables listing.
 *
 * @param hook   the hook of a base chain ({@code forward}), null for a regular chain
 * @param policy the policy of a base chain ({@code drop}, {@code accept}), null for a regular chain
 */
public record NftChain(String family, String table, String name, String hook, String policy, List<NftRule> rules) {
    public NftChain {
        rules = List.copyOf(rules);
    }

    /** A forward base chain that drops what none of its rules accepted: by policy, or by an unconditional last rule. */
    public boolean dropsForwardedByDefault() {
        return "forward".equals(hook) && ("drop".equals(policy) || (!rules.isEmpty() && rules.getLast().dropsEverything()));
    }
}
