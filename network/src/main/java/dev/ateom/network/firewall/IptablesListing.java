package dev.ateom.network.firewall;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One table as {@code iptables -t <table> -S} prints it: {@code -P CHAIN POLICY} for built-in chains, {@code -N CHAIN}
 * for user chains, {@code -A CHAIN <match...> -j TARGET} for each rule, arguments with special characters in double
 * quotes. A pure function of the text.
 */
public final class IptablesListing {
    private final Map<String, String> policies = new LinkedHashMap<>();
    private final List<String> userChains = new ArrayList<>();
    private final List<List<String>> rules = new ArrayList<>();

    private IptablesListing() {
    }

    public static IptablesListing parse(String listing) {
        var parsed = new IptablesListing();
        for (String line : listing.split("\n")) {
            List<String> words = words(line.strip());
            if (words.size() >= 3 && words.getFirst().equals("-P")) {
                parsed.policies.put(words.get(1), words.get(2));
            } else if (words.size() == 2 && words.getFirst().equals("-N")) {
                parsed.userChains.add(words.get(1));
            } else if (words.size() >= 2 && words.getFirst().equals("-A")) {
                parsed.rules.add(List.copyOf(words));
            }
        }
        return parsed;
    }

    /** The policy of a built-in chain ({@code DROP}, {@code ACCEPT}), or null when the listing has none for it. */
    public String policy(String chain) {
        return policies.get(chain);
    }

    public boolean hasChain(String chain) {
        return policies.containsKey(chain) || userChains.contains(chain);
    }

    /** Whether {@code chain} drops what none of its rules accepted: by policy, or by an unconditional last rule. */
    public boolean dropsByDefault(String chain) {
        if ("DROP".equals(policy(chain))) {
            return true;
        }
        List<List<String>> own = rules.stream().filter(r -> r.get(1).equals(chain)).toList();
        if (own.isEmpty()) {
            return false;
        }
        List<String> last = own.getLast();
        return last.size() == 4 && last.get(2).equals("-j") && (last.get(3).equals("DROP") || last.get(3).equals("REJECT"));
    }

    /**
     * The rules carrying {@code comment}, each as the arguments that delete it ({@code -D CHAIN <the same spec>}): a
     * rule is deleted by what it is, never by its number, which other software's inserts shift meanwhile.
     */
    public List<List<String>> deletionsOfRulesWithComment(String comment) {
        List<List<String>> deletions = new ArrayList<>();
        for (List<String> rule : rules) {
            int at = rule.indexOf("--comment");
            if (at >= 0 && at + 1 < rule.size() && rule.get(at + 1).equals(comment)) {
                List<String> delete = new ArrayList<>(rule);
                delete.set(0, "-D");
                deletions.add(delete);
            }
        }
        return deletions;
    }

    /** Splits a line into arguments as the shell would: double quotes group, a backslash inside them escapes. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '\\' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else if (c == '"') {
                    quoted = false;
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                if (word == null) {
                    word = new StringBuilder();
                }
                if (c == '"') {
                    quoted = true;
                } else {
                    word.append(c);
                }
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
