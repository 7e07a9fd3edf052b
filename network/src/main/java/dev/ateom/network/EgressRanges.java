package dev.ateom.network;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Turns an {@link EgressPolicy} and the always-denied ranges into the one thing the slot's firewall needs: the
 * sorted, disjoint list of denied networks. Deciding here (longest prefix wins, see {@link EgressPolicy}) keeps the
 * nftables rules trivial and lets a policy change be a single atomic set replacement.
 */
final class EgressRanges {
    private enum Kind {
        DEFAULT_DENY(1, true), ALLOW(2, false), DENY(3, true);

        final int rank;
        final boolean denies;

        Kind(int rank, boolean denies) {
            this.rank = rank;
            this.denies = denies;
        }
    }

    private record Rule(Ipv4Cidr cidr, Kind kind) {
    }

    private EgressRanges() {
    }

    static List<Ipv4Cidr> denied(EgressPolicy policy, List<Ipv4Cidr> defaultDenied) {
        List<Rule> rules = new ArrayList<>();
        defaultDenied.forEach(c -> rules.add(new Rule(c, Kind.DEFAULT_DENY)));
        policy.allow().forEach(c -> rules.add(new Rule(c, Kind.ALLOW)));
        policy.deny().forEach(c -> rules.add(new Rule(c, Kind.DENY)));
        TreeSet<Long> boundaries = new TreeSet<>();
        boundaries.add(0L);
        boundaries.add(1L << 32);
        for (Rule rule : rules) {
            boundaries.add(rule.cidr().first());
            boundaries.add(rule.cidr().last() + 1);
        }
        List<long[]> deniedRanges = new ArrayList<>();
        Long start = null;
        for (long boundary : boundaries) {
            if (start != null && start < boundary) {
                if (decides(rules, start)) {
                    addMerged(deniedRanges, start, boundary - 1);
                }
            }
            start = boundary;
        }
        List<Ipv4Cidr> cidrs = new ArrayList<>();
        for (long[] range : deniedRanges) {
            cidrs.addAll(toCidrs(range[0], range[1]));
        }
        return cidrs;
    }

    /** Whether the address range starting at {@code address} (no boundary inside it) is denied. */
    private static boolean decides(List<Rule> rules, long address) {
        Rule winner = null;
        for (Rule rule : rules) {
            if (rule.cidr().first() <= address && address <= rule.cidr().last()
                    && (winner == null || rule.cidr().prefixLength() > winner.cidr().prefixLength()
                        || (rule.cidr().prefixLength() == winner.cidr().prefixLength() && rule.kind().rank > winner.kind().rank))) {
                winner = rule;
            }
        }
        return winner != null && winner.kind().denies;
    }

    private static void addMerged(List<long[]> ranges, long first, long last) {
        if (!ranges.isEmpty() && ranges.getLast()[1] + 1 == first) {
            ranges.getLast()[1] = last;
        } else {
            ranges.add(new long[] {first, last});
        }
    }

    /** The fewest CIDRs covering exactly first..last. */
    static List<Ipv4Cidr> toCidrs(long first, long last) {
        List<Ipv4Cidr> cidrs = new ArrayList<>();
        long next = first;
        while (next <= last) {
            int hostBits = next == 0 ? 32 : Long.numberOfTrailingZeros(next);
            while (hostBits > 0 && next + (1L << hostBits) - 1 > last) {
                hostBits--;
            }
            cidrs.add(new Ipv4Cidr(new Ipv4Address((int) next), 32 - hostBits));
            next += 1L << hostBits;
        }
        return cidrs;
    }
}
