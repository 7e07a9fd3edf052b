package dev.ateom.network;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The daemon's network options. Field checks happen here; whether the pool fits the host (overlaps no address or
 * route of the host namespace) is checked by {@link NetworkSlots#open}.
 *
 * @param prefix            name prefix of everything created: namespaces {@code <prefix>-s<n>}, host-side veths
 *                          {@code <prefix>-h<n>}, the host nftables table {@code <prefix>}; 1-8 of {@code [a-z0-9]},
 *                          starting with a letter (interface names have at most 15 characters). Tests use their own.
 * @param pool              where slot addresses come from, split into /30s (slot n: {@code pool + 4n}, host side
 *                          {@code +1}, slot side {@code +2})
 * @param readySlots        slots kept built and waiting, so acquiring one does not wait for the kernel
 * @param maxPublishedPorts most published ports one sandbox may ask for
 * @param reuseDelay        how long a released slot's address rests before another sandbox gets it
 * @param hostNamespace     the named network namespace that plays the host (empty: the daemon's own); tests run a
 *                          whole host inside a namespace of their own
 * @param routedInterfaces  host interfaces whose peers route the pool back: traffic leaving through them keeps the
 *                          slot's address instead of being masqueraded to the host's
 * @param hostFirewall      whether forward chains of other software that drop sandbox traffic get rules letting the
 *                          daemon's interfaces through ({@link HostFirewallMode#ALLOW}) or are only reported
 */
public record NetworkConfig(String prefix, Ipv4Cidr pool, int readySlots, int maxPublishedPorts, Duration reuseDelay,
                            Optional<String> hostNamespace, Set<String> routedInterfaces, HostFirewallMode hostFirewall) {
    public static final String DEFAULT_PREFIX = "ateom";
    /** A /16 of the shared address space 100.64.0.0/10 (RFC 6598), away from its often-used start. */
    public static final Ipv4Cidr DEFAULT_POOL = Ipv4Cidr.parse("100.72.0.0/16");
    public static final int DEFAULT_READY_SLOTS = 4;
    public static final int DEFAULT_MAX_PUBLISHED_PORTS = 16;
    public static final Duration DEFAULT_REUSE_DELAY = Duration.ofSeconds(5);

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]{0,7}");
    private static final Pattern INTERFACE = Pattern.compile("[A-Za-z0-9_.@-]{1,15}");

    public NetworkConfig {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new NetworkConfigException("network-prefix", "'" + prefix + "' must be 1-8 characters of [a-z0-9], starting with a letter");
        }
        if (pool == null) {
            throw new NetworkConfigException("network-pool", "missing");
        }
        if (pool.prefixLength() < 8 || pool.prefixLength() > 29) {
            throw new NetworkConfigException("network-pool", pool + " must be between /8 and /29 (a /30 per sandbox, at least two)");
        }
        if (readySlots < 0 || readySlots > 64) {
            throw new NetworkConfigException("network-pool-ready", readySlots + " is not within 0-64");
        }
        if (maxPublishedPorts < 0 || maxPublishedPorts > 1024) {
            throw new NetworkConfigException("network-max-ports", maxPublishedPorts + " is not within 0-1024");
        }
        if (reuseDelay == null || reuseDelay.isNegative()) {
            throw new NetworkConfigException("network-reuse-delay", reuseDelay + " must be zero or positive");
        }
        hostNamespace = hostNamespace == null ? Optional.empty() : hostNamespace;
        routedInterfaces = routedInterfaces == null ? Set.of() : Set.copyOf(routedInterfaces);
        for (String name : routedInterfaces) {
            if (!INTERFACE.matcher(name).matches()) {
                throw new NetworkConfigException("network-routed-interfaces", "'" + name + "' is not an interface name");
            }
        }
        hostFirewall = hostFirewall == null ? HostFirewallMode.ALLOW : hostFirewall;
    }

    public static NetworkConfig defaults() {
        return new NetworkConfig(DEFAULT_PREFIX, DEFAULT_POOL, DEFAULT_READY_SLOTS, DEFAULT_MAX_PUBLISHED_PORTS, DEFAULT_REUSE_DELAY,
                Optional.empty(), Set.of(), HostFirewallMode.ALLOW);
    }

    /** Parses {@code --network-pool}, naming the option on failure. */
    public static Ipv4Cidr parsePool(String text) {
        try {
            return Ipv4Cidr.parse(text);
        } catch (IllegalArgumentException e) {
            throw new NetworkConfigException("network-pool", e.getMessage());
        }
    }

    /** How many slots the pool holds (one /30 each). */
    public int capacity() {
        return (int) (pool.size() / 4);
    }

    public NetworkConfig withPrefix(String newPrefix) {
        return new NetworkConfig(newPrefix, pool, readySlots, maxPublishedPorts, reuseDelay, hostNamespace, routedInterfaces, hostFirewall);
    }

    public NetworkConfig withPool(Ipv4Cidr newPool) {
        return new NetworkConfig(prefix, newPool, readySlots, maxPublishedPorts, reuseDelay, hostNamespace, routedInterfaces, hostFirewall);
    }

    public NetworkConfig withReadySlots(int count) {
        return new NetworkConfig(prefix, pool, count, maxPublishedPorts, reuseDelay, hostNamespace, routedInterfaces, hostFirewall);
    }

    public NetworkConfig withMaxPublishedPorts(int count) {
        return new NetworkConfig(prefix, pool, readySlots, count, reuseDelay, hostNamespace, routedInterfaces, hostFirewall);
    }

    public NetworkConfig withReuseDelay(Duration delay) {
        return new NetworkConfig(prefix, pool, readySlots, maxPublishedPorts, delay, hostNamespace, routedInterfaces, hostFirewall);
    }

    public NetworkConfig withHostNamespace(String name) {
        return new NetworkConfig(prefix, pool, readySlots, maxPublishedPorts, reuseDelay, Optional.of(name), routedInterfaces, hostFirewall);
    }

    public NetworkConfig withRoutedInterfaces(Set<String> names) {
        return new NetworkConfig(prefix, pool, readySlots, maxPublishedPorts, reuseDelay, hostNamespace, names, hostFirewall);
    }

    public NetworkConfig withHostFirewall(HostFirewallMode mode) {
        return new NetworkConfig(prefix, pool, readySlots, maxPublishedPorts, reuseDelay, hostNamespace, routedInterfaces, mode);
    }
}
