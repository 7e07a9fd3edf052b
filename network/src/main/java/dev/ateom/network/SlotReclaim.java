package dev.ateom.network;

import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a previous daemon left: at start, every namespace and veth with the prefix that no running sandbox owns is
 * removed; the owned ones wait for the daemon's recovery to adopt them, and those it did not adopt go after it.
 */
final class SlotReclaim {
    private static final System.Logger LOG = System.getLogger(SlotReclaim.class.getName());

    private final NetNamespace host;
    private final NetworkConfig config;
    private final SlotBuilder builder;
    private final SlotIndexes indexes;
    private final Set<Integer> ownedNotAdopted = new HashSet<>();
    private final List<String> reclaimed = Collections.synchronizedList(new ArrayList<>());

    SlotReclaim(NetNamespace host, NetworkConfig config, SlotBuilder builder, SlotIndexes indexes) {
        this.host = host;
        this.config = config;
        this.builder = builder;
        this.indexes = indexes;
    }

    /**
     * Keeps the slots of running sandboxes out of use until they are adopted.
     *
     * @throws IllegalArgumentException a name is not a slot of this prefix
     * @throws NetworkConfigException   a slot lies outside the configured pool
     */
    synchronized void keepOwned(Set<String> ownedSlots) {
        for (String owned : ownedSlots) {
            SlotName name = parse(owned);
            if (name.index() >= config.capacity()) {
                throw new NetworkConfigException("network-pool", "the running sandbox's slot " + owned + " lies outside " + config.pool()
                        + " (was the pool changed while it ran?)");
            }
            ownedNotAdopted.add(name.index());
            indexes.claim(name.index());
        }
    }

    /** Removes what a previous daemon left behind with this prefix and no owner. */
    void removeLeftovers() throws IOException {
        Set<SlotName> leftovers = new TreeSet<>((a, b) -> Integer.compare(a.index(), b.index()));
        for (String namespace : NetNamespaces.list(config.prefix() + "-s")) {
            SlotName.parse(config.prefix(), namespace).ifPresent(leftovers::add);
        }
        List<LinkEntry> links = host.call(() -> {
            try (RouteNetlink netlink = RouteNetlink.open()) {
                return netlink.links();
            }
        });
        for (LinkEntry link : links) {
            SlotName.parse(config.prefix(), link.name()).ifPresent(leftovers::add);
        }
        for (SlotName name : leftovers) {
            synchronized (this) {
                if (ownedNotAdopted.contains(name.index())) {
                    continue;
                }
            }
            if (name.index() >= config.capacity()) {
                // another pool's slot: its addresses are not ours to compute, only its names
                NetNamespaces.delete(name.namespace());
                host.call(() -> {
                    try (RouteNetlink netlink = RouteNetlink.open()) {
                        return netlink.deleteLink(name.hostInterface());
                    }
                });
            } else {
                builder.destroy(name);
                indexes.claim(name.index());
                indexes.release(name.index()); // rests like any released address
            }
            reclaimed.add(name.namespace());
            LOG.log(System.Logger.Level.INFO, "network: reclaimed slot {0}, which no sandbox owns", name);
        }
    }

    /**
     * The name of an owned slot being adopted, which is no longer waiting for adoption.
     *
     * @throws IllegalStateException it was not named as owned at start, or is adopted already
     */
    synchronized SlotName adopting(String slotName) {
        SlotName name = parse(slotName);
        if (!ownedNotAdopted.remove(name.index())) {
            throw new IllegalStateException("slot " + slotName + " was not named as owned when the slots were opened, or is adopted already");
        }
        return name;
    }

    /** Removes the owned slots no adopt took back; returns their names (one that cannot be removed stays out of use). */
    List<String> reclaimUnadopted() {
        List<Integer> unadopted;
        synchronized (this) {
            unadopted = new ArrayList<>(ownedNotAdopted);
            ownedNotAdopted.clear();
        }
        List<String> removed = new ArrayList<>();
        for (int index : unadopted) {
            SlotName name = new SlotName(config.prefix(), index);
            try {
                builder.destroy(name);
                indexes.release(index);
                removed.add(name.namespace());
                reclaimed.add(name.namespace());
                LOG.log(System.Logger.Level.INFO, "network: reclaimed slot {0}: its sandbox was not adopted", name);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "network: slot {0} of a sandbox that was not adopted not removed: {1}", name,
                        e.getMessage());
            }
        }
        return removed;
    }

    /** Whether slots of running sandboxes still wait for adoption (they need the host's rules). */
    synchronized boolean ownedWaiting() {
        return !ownedNotAdopted.isEmpty();
    }

    /** Slot names removed because no sandbox owned them. */
    List<String> reclaimed() {
        synchronized (reclaimed) {
            return List.copyOf(reclaimed);
        }
    }

    private SlotName parse(String slotName) {
        return SlotName.parse(config.prefix(), slotName)
                .orElseThrow(() -> new IllegalArgumentException("'" + slotName + "' is not a slot name with prefix " + config.prefix()));
    }
}
