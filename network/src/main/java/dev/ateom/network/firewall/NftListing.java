package dev.ateom.network.firewall;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the chains and rules out of a ruleset listing as {@code nft -a -s -t list ruleset} prints it (one table,
 * chain or rule per line, rules ending in {@code # handle <n>}). A pure function of the text: what to do with the
 * chains is decided elsewhere.
 */
public final class NftListing {
    private static final Pattern TABLE = Pattern.compile("^table (\\S+) (\\S+) \\{");
    private static final Pattern CHAIN = Pattern.compile("^\\tchain (\\S+) \\{");
    private static final Pattern OTHER_BLOCK = Pattern.compile("^\\t\\S.*\\{( # handle \\d+)?$");
    private static final Pattern HOOK = Pattern.compile("^\\t\\ttype \\S+ hook (\\S+) .*;");
    private static final Pattern POLICY = Pattern.compile("policy (\\S+);");
    private static final Pattern RULE = Pattern.compile("^\\t\\t(.*\\S)\\s+# handle (\\d+)$");

    private NftListing() {
    }

    public static List<NftChain> chains(String listing) {
        List<NftChain> chains = new ArrayList<>();
        String family = null;
        String table = null;
        ChainInProgress chain = null;
        boolean inOtherBlock = false;
        for (String line : listing.split("\n")) {
            Matcher tableLine = TABLE.matcher(line);
            Matcher chainLine = CHAIN.matcher(line);
            if (tableLine.find()) {
                family = tableLine.group(1);
                table = tableLine.group(2);
            } else if (chainLine.find() && table != null) {
                chain = new ChainInProgress(family, table, chainLine.group(1));
            } else if (line.equals("\t}")) {
                if (chain != null) {
                    chains.add(chain.done());
                }
                chain = null;
                inOtherBlock = false;
            } else if (chain == null && OTHER_BLOCK.matcher(line).find()) {
                inOtherBlock = true;
            } else if (chain != null && !inOtherBlock) {
                chain.read(line);
            }
        }
        return chains;
    }

    private static final class ChainInProgress {
        private final String family;
        private final String table;
        private final String name;
        private final List<NftRule> rules = new ArrayList<>();
        private String hook;
        private String policy;

        ChainInProgress(String family, String table, String name) {
            this.family = family;
            this.table = table;
            this.name = name;
        }

        void read(String line) {
            Matcher hookLine = HOOK.matcher(line);
            if (hookLine.find()) {
                hook = hookLine.group(1);
                Matcher policyPart = POLICY.matcher(line);
                policy = policyPart.find() ? policyPart.group(1) : "accept";
                return;
            }
            Matcher rule = RULE.matcher(line);
            if (rule.find()) {
                rules.add(new NftRule(rule.group(1).replaceAll("\\s+", " "), Long.parseLong(rule.group(2))));
            }
        }

        NftChain done() {
            return new NftChain(family, table, name, hook, policy, rules);
        }
    }
}
