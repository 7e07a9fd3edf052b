package dev.ateom.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.network.firewall.DroppingForwardChain;
import dev.ateom.network.firewall.DroppingForwardChains;
import dev.ateom.network.firewall.FirewallBackend;
import dev.ateom.network.firewall.ForwardExemptions;
import dev.ateom.network.firewall.Iptables;
import dev.ateom.network.firewall.SandboxForwardRules;
import dev.ateom.network.netlink.RouteEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.Sysctl;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The first experience, in the real host namespace where dockerd runs (scripts/setup.sh starts it; Docker's
 * {@code FORWARD} policy drop lives here): a fake guest on a slot reaches a test host routed from the host namespace
 * with no rule added by hand, and once the slots are closed no rule of the daemon's is left in any table.
 *
 * <p>The machine is shared: the prefix and pool are random, the only rules inserted match this run's own interfaces,
 * the only traffic goes to this run's own test host, and whatever the daemon's code might leave is removed in a
 * finally by the same comment. No chain's policy is changed, nothing is flushed.
 */
class DockerForwardTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void aGuestReachesATestHostThroughDockersForwardDropWithNoManualRule() throws IOException {
        List<DroppingForwardChain> dropping;
        try (NetNamespace own = NetNamespace.ofCurrentThread()) {
            dropping = own.call(() -> DroppingForwardChains.find("no-table-of-this-test"));
        }
        requireDocker(dropping);

        String prefix = TestNetwork.randomPrefix();
        Ipv4Cidr pool = freeNetwork("100.72.");
        NetworkConfig config = NetworkConfig.defaults().withPrefix(prefix).withPool(pool).withReadySlots(0)
                .withRoutedInterfaces(Set.of(prefix + "-x1"));
        var rules = new SandboxForwardRules(prefix, pool.toString());
        TestHost testHost = null;
        try (NetNamespace root = NetNamespace.ofCurrentThread()) {
            try {
                testHost = TestHost.create(root, prefix, 1, freeNetwork("198.18."));
                String link = testHost.link();
                // answers arrive on this link: the kernel forwards only what arrives where forwarding is on (ours only)
                root.call(() -> {
                    Sysctl.write(Sysctl.ipv4Interface(link, "forwarding"), "1");
                    return null;
                });
                try (NetworkSlots slots = NetworkSlots.open(config, Set.of())) {
                    assertThat(slots.openedForwardChains()).as("Docker's chain got the rules").anyMatch(c -> c.insertInto().equals("DOCKER-USER"));
                    Slot slot = slots.acquire("sbx-docker", NetworkPolicy.DEFAULT);
                    try (FakeGuest guest = FakeGuest.attach(slot, prefix + "-g1")) {
                        assertThat(HttpGet.body(guest.httpGet(testHost.address(), 80, "/"))).isEqualTo(testHost.body());
                        assertThat(testHost.sources()).containsExactly(slot.slotAddress().toString());
                    } finally {
                        slots.release(slot);
                    }
                }
                assertThat(rulesWithComment(root, rules.comment())).as("no rule of the daemon's left in any table").isEmpty();
            } finally {
                // whatever a failure above left in the shared host's tables goes, by this run's comment only
                root.call(() -> new ForwardExemptions(rules).removeAll());
                if (testHost != null) {
                    String link = testHost.link();
                    // gone with the test host's namespace too, but later (the kernel's namespace cleanup runs async)
                    root.call(() -> {
                        try (RouteNetlink netlink = RouteNetlink.open()) {
                            return netlink.deleteLink(link);
                        }
                    });
                    testHost.close();
                }
            }
        }
        assertThat(TestNetwork.leftovers(prefix)).as("no table, namespace or link of the run left").isEmpty();
    }

    private static void requireDocker(List<DroppingForwardChain> dropping) {
        if (dropping.stream().anyMatch(c -> c.insertInto().equals("DOCKER-USER"))) {
            return;
        }
        String reason = "no forward chain of Docker's drops here (is dockerd running? scripts/setup.sh starts it): " + dropping;
        String ci = System.getenv("CI");
        if (ci != null && !ci.isBlank()) {
            throw new IllegalStateException("CI is set but " + reason);
        }
        Assumptions.abort(reason);
    }

    /** Where this run's rules could be: every nftables rule, and iptables' own listings of its filter tables. */
    private static List<String> rulesWithComment(NetNamespace root, String comment) throws IOException {
        return root.call(() -> {
            List<String> found = new ArrayList<>();
            Nftables.runListingWithHandles("list ruleset").lines().filter(l -> l.contains(comment)).forEach(found::add);
            for (FirewallBackend backend : List.of(FirewallBackend.IPTABLES_NFT, FirewallBackend.IPTABLES_LEGACY)) {
                var iptables = Iptables.find(backend);
                if (iptables.isPresent()) {
                    iptables.get().run(List.of("-t", "filter", "-S")).lines().filter(l -> l.contains(comment))
                            .forEach(l -> found.add(backend.label() + ": " + l));
                }
            }
            return found;
        });
    }

    /** A random /24 starting with {@code start} that no address or route of the host overlaps. */
    private static Ipv4Cidr freeNetwork(String start) throws IOException {
        try (NetNamespace root = NetNamespace.ofCurrentThread()) {
            List<RouteEntry> routes = root.call(() -> {
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    return netlink.ipv4Routes();
                }
            });
            for (int attempt = 0; attempt < 20; attempt++) {
                Ipv4Cidr candidate = Ipv4Cidr.parse(start + RANDOM.nextInt(256) + ".0/24");
                boolean taken = routes.stream().anyMatch(r -> r.prefixLength() > 0 && new Ipv4Cidr(
                        new Ipv4Address(r.destination() & Ipv4Cidr.mask(r.prefixLength())), r.prefixLength()).overlaps(candidate));
                if (!taken) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("no free /24 under " + start + " after 20 tries");
    }
}
