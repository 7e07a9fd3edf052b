package dev.ateom.network;

import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NamespaceCall;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.os.Sysctl;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A host of the test's own: a network namespace {@code <prefix>-host} standing in for the daemon's host namespace
 * (forwarding on, no firewall of anyone else in it), with test hosts linked to it. Every name starts with a random
 * prefix, so concurrent test classes, other sessions and a running daemon never meet. {@link #close()} removes it all.
 */
public final class TestNetwork implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String prefix;
    private final NetNamespace host;
    private final List<TestHost> testHosts = new ArrayList<>();
    private final List<NetworkSlots> opened = new ArrayList<>();

    private TestNetwork(String prefix, NetNamespace host) {
        this.prefix = prefix;
        this.host = host;
    }

    public static TestNetwork create() throws IOException {
        String prefix = randomPrefix();
        String hostName = prefix + "-host";
        NetNamespaces.create(hostName);
        NetNamespace host = NetNamespace.named(hostName);
        try {
            host.call(() -> {
                Sysctl.write("net/ipv4/ip_forward", "1");
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    netlink.setUp(netlink.linkIndex("lo"));
                }
                return null;
            });
            return new TestNetwork(prefix, host);
        } catch (IOException | RuntimeException e) {
            host.close();
            NetNamespaces.delete(hostName);
            throw e;
        }
    }

    /** {@code t} and five random characters: unique enough, and short enough for interface names. */
    public static String randomPrefix() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        var prefix = new StringBuilder("t");
        for (int i = 0; i < 5; i++) {
            prefix.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return prefix.toString();
    }

    public String prefix() {
        return prefix;
    }

    public NetNamespace host() {
        return host;
    }

    /** Test host {@code number} on {@code network} (a /24 of the test's choice; see {@link TestHost#create}). */
    public TestHost addTestHost(int number, String network) throws IOException {
        TestHost testHost = TestHost.create(host, prefix, number, Ipv4Cidr.parse(network));
        testHosts.add(testHost);
        return testHost;
    }

    /** Options for slots in this host: the test's prefix, a /24 pool, no reuse delay, test hosts routed (not masqueraded). */
    public NetworkConfig config(int readySlots) {
        Set<String> routed = new LinkedHashSet<>();
        testHosts.forEach(t -> routed.add(t.link()));
        return NetworkConfig.defaults().withPrefix(prefix).withPool(Ipv4Cidr.parse("100.72.0.0/24")).withReadySlots(readySlots)
                .withReuseDelay(Duration.ZERO).withHostNamespace(prefix + "-host").withRoutedInterfaces(routed);
    }

    /** Network slots in this host, closed (before the host goes) by {@link #close()}. */
    public NetworkSlots openSlots(NetworkConfig config) {
        NetworkSlots slots = NetworkSlots.open(config, Set.of());
        opened.add(slots);
        return slots;
    }

    /** Runs in the test's host namespace. */
    public <T> T inHost(NamespaceCall<T> work) throws IOException {
        return host.call(work);
    }

    /** Interfaces of the host namespace whose name starts with the prefix (slot veths and test host links). */
    public List<String> hostLinks() throws IOException {
        return host.call(() -> {
            try (RouteNetlink netlink = RouteNetlink.open()) {
                return netlink.links().stream().map(LinkEntry::name).filter(n -> n.startsWith(prefix)).toList();
            }
        });
    }

    /** Everything with the prefix that is left in the daemon's (the test JVM's) own namespace and in /run/netns. */
    public static List<String> leftovers(String prefix) throws IOException {
        List<String> found = new ArrayList<>();
        NetNamespaces.list(prefix).forEach(n -> found.add("netns " + n));
        try (NetNamespace own = NetNamespace.ofCurrentThread()) {
            own.call(() -> {
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    netlink.links().stream().map(LinkEntry::name).filter(n -> n.startsWith(prefix)).forEach(n -> found.add("link " + n));
                }
                for (String line : Nftables.run("list tables").split("\n")) {
                    if (line.strip().endsWith(" " + prefix)) {
                        found.add("nft " + line.strip());
                    }
                }
                return null;
            });
        }
        return found;
    }

    /**
     * Closes the slots opened with {@link #openSlots}, removes the test hosts and the host namespace, then fails if
     * anything with the prefix is left anywhere (namespaces, links or nft tables of the test JVM's own namespace).
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (NetworkSlots slots : opened) {
            try {
                slots.close();
            } catch (RuntimeException e) {
                failure = failure == null ? new IOException(e) : failure;
            }
        }
        for (TestHost testHost : testHosts) {
            try {
                testHost.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        host.close();
        NetNamespaces.delete(prefix + "-host");
        if (failure != null) {
            throw failure;
        }
        List<String> left = leftovers(prefix);
        if (!left.isEmpty()) {
            throw new IOException("left behind by the test: " + left);
        }
    }
}
