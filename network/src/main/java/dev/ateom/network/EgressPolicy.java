package dev.ateom.network;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a sandbox may open connections. Everything is allowed except {@link DefaultDenied the always-denied ranges},
 * unless a rule says otherwise. The most specific rule covering an address decides (longest prefix); between rules
 * of the same length an explicit deny beats an explicit allow, which beats an always-denied range. So
 * {@code allow 10.1.0.0/16} opens that network only, {@code allow 0.0.0.0/0} opens nothing that is always denied,
 * {@code deny 0.0.0.0/0} plus {@code allow 203.0.113.7} allows that one address, and the metadata address must be
 * allowed as {@code 169.254.169.254/32} even when {@code 169.254.0.0/16} is.
 */
public record EgressPolicy(List<Ipv4Cidr> allow, List<Ipv4Cidr> deny) {
    public static final EgressPolicy DEFAULT = new EgressPolicy(List.of(), List.of());
    /** Most entries per list. */
    public static final int MAX_ENTRIES = 256;

    public EgressPolicy {
        allow = List.copyOf(allow);
        deny = List.copyOf(deny);
    }

    /**
     * Parses the lists of an API request; {@code field} is the JSON path of the egress object (e.g.
     * {@code network.egress}), extended with {@code .allow[i]} in errors.
     */
    public static EgressPolicy parse(String field, List<String> allow, List<String> deny) {
        return new EgressPolicy(parseList(field + ".allow", allow), parseList(field + ".deny", deny));
    }

    private static List<Ipv4Cidr> parseList(String field, List<String> entries) {
        if (entries == null) {
            return List.of();
        }
        if (entries.size() > MAX_ENTRIES) {
            throw new InvalidNetworkInputException(field, entries.size() + " entries, at most " + MAX_ENTRIES);
        }
        List<Ipv4Cidr> parsed = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            try {
                parsed.add(Ipv4Cidr.parse(entries.get(i)));
            } catch (IllegalArgumentException e) {
                throw new InvalidNetworkInputException(field + "[" + i + "]", e.getMessage());
            }
        }
        return parsed;
    }
}
