package dev.ateom.network;

import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.netlink.LinkEntry;
import dev.ateom.network.netlink.RouteNetlink;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The daemon's network slots: a pool of ready slots (so a create, resume or clone never waits for the kernel), the
 * assignment of a slot to a sandbox with its policy, live policy changes, release, and at start the reclaiming of
 * everything with the daemon's prefix that no sandbox owns any more.
 *
 * <pre>{@code
 * NetworkSlots slots = NetworkSlots.open(config, ownedSlotNames);   // reclaims the rest, installs the host table
 * Slot slot = slots.acquire(sandboxId, policy);                      // ready slot, policy applied
 * chv.addNet(netConfig, List.of(slot.tapFd()));                      // or RestoredNetConfig + fd on vm.restore
 * slots.replaceEgress(slot, newEgress);                              // while it runs, atomically
 * slots.release(slot);                                               // VM stopped: rules, ports, conntrack, namespace gone
 * }</pre>
 *
 * Thread-safe. Every failure is a {@link NetworkException}; whatever a failed call built is removed again.
 */
public final class NetworkSlots implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NetworkSlots.class.getName());
    private static final Duration REFILL_JOIN_LIMIT = Duration.ofSeconds(60);
    private static final String POLICY_FIELD = "network";

    private final NetworkConfig config;
    private final NetNamespace host;
    private final SlotBuilder builder;
    private final SlotIndexes indexes;
    private final List<Ipv4Cidr> alwaysDenied;
    private final Object lock = new Object();
    private final Deque<Slot> ready = new ArrayDeque<>();
    private final Set<Slot> assigned = new HashSet<>();
    private final Set<Integer> ownedNotAdopted = new HashSet<>();
    private final List<String> reclaimed = new ArrayList<>();
    private List<String> warnings = List.of();
    private Thread refiller;
    private volatile boolean closed;

    private NetworkSlots(NetworkConfig config, NetNamespace host) {
        this.config = config;
        this.host = host;
        this.builder = new SlotBuilder(host, config.prefix(), config.pool());
        this.indexes = new SlotIndexes(config.capacity(), config.reuseDelay());
        this.alwaysDenied = DefaultDenied.withPool(config.pool());
    }

    /**
     * Checks the host, reclaims every namespace, veth and connection-tracking entry with the configured prefix except
     * those of {@code ownedSlots} (slot names from the records of sandboxes whose VM still runs; call {@link #adopt}
     * for each), installs the host table afresh, and starts filling the ready pool.
     *
     * @throws NetworkConfigException the pool collides with the host or an owned slot is not this pool's
     * @throws NetworkSetupException  libnftables, {@code /dev/net/tun} or a host operation is missing or failed
     */
    public static NetworkSlots open(NetworkConfig config, Set<String> ownedSlots) {
        NetNamespace host;
        try {
            Nftables.requireAvailable();
            host = config.hostNamespace().isPresent() ? NetNamespace.named(config.hostNamespace().get()) : NetNamespace.ofCurrentThread();
        } catch (IOException e) {
            throw new NetworkSetupException(e.getMessage(), e);
        }
        var slots = new NetworkSlots(config, host);
        try {
            slots.start(ownedSlots);
            return slots;
        } catch (IOException e) {
            slots.close();
            throw new NetworkSetupException("cannot prepare the network slots: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            slots.close();
            throw e;
        }
    }

    private void start(Set<String> ownedSlots) throws IOException {
        HostFit.checkPool(host, config.prefix(), config.pool());
        for (String owned : ownedSlots) {
            SlotName name = SlotName.parse(config.prefix(), owned)
                    .orElseThrow(() -> new IllegalArgumentException("'" + owned + "' is not a slot name with prefix " + config.prefix()));
            if (name.index() >= config.capacity()) {
                throw new NetworkConfigException("network-pool", "the running sandbox's slot " + owned + " lies outside " + config.pool()
                        + " (was the pool changed while it ran?)");
            }
            ownedNotAdopted.add(name.index());
            indexes.claim(name.index());
        }
        reclaim();
        host.call(() -> Nftables.run(HostRuleset.create(config.prefix(), config.pool(), config.routedInterfaces())));
        warnings = HostFit.warnings(host, config.prefix());
        warnings.forEach(w -> LOG.log(System.Logger.Level.WARNING, "network: {0}", w));
        refiller = Thread.ofPlatform().name("network-slot-refill").daemon().start(this::refill);
    }

    /** Removes what a previous daemon left behind with this prefix and no owner. */
    private void reclaim() throws IOException {
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
            if (ownedNotAdopted.contains(name.index())) {
                continue;
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
     * A slot for {@code sandboxId} with {@code policy} in force: from the ready pool when one is waiting, built on
     * the spot otherwise.
     *
     * @throws InvalidNetworkInputException the policy breaks a limit (the field is named)
     * @throws PoolExhaustedException       every address of the pool is taken or resting
     * @throws NetworkSetupException        building or configuring the slot failed (nothing is left of it)
     */
    public Slot acquire(String sandboxId, NetworkPolicy policy) {
        requireOpen();
        policy.validate(POLICY_FIELD, config.maxPublishedPorts());
        Slot slot = takeReady();
        if (slot == null) {
            slot = buildNew();
        }
        try {
            configure(slot, sandboxId, policy, true);
        } catch (IOException | RuntimeException e) {
            tearDownQuietly(slot, e);
            throw e instanceof NetworkException ne ? ne : new NetworkSetupException("cannot configure slot " + slot.name()
                    + " for sandbox " + sandboxId + ": " + e.getMessage(), e);
        }
        LOG.log(System.Logger.Level.INFO, "network: slot {0} ({1}) assigned to sandbox {2}, ports {3}", slot.name(), slot.slotAddress(),
                sandboxId, slot.publishedPorts());
        synchronized (lock) {
            assigned.add(slot);
            lock.notifyAll(); // the refiller builds a replacement
        }
        return slot;
    }

    /**
     * Takes back the slot of a sandbox whose VM survived a daemon restart ({@code slotName} was in the owned set given
     * to {@link #open}): re-applies its whole ruleset with {@code policy} and reserves its host ports again (the
     * ports' {@code hostPort} preferences keep them when free). The slot holds no TAP descriptor: the VMM has it.
     */
    public Slot adopt(String slotName, String sandboxId, NetworkPolicy policy) {
        requireOpen();
        policy.validate(POLICY_FIELD, config.maxPublishedPorts());
        SlotName name = SlotName.parse(config.prefix(), slotName)
                .orElseThrow(() -> new IllegalArgumentException("'" + slotName + "' is not a slot name with prefix " + config.prefix()));
        synchronized (lock) {
            if (!ownedNotAdopted.remove(name.index())) {
                throw new IllegalStateException("slot " + slotName + " was not named as owned when the slots were opened, or is adopted already");
            }
        }
        NetNamespace namespace;
        try {
            namespace = NetNamespace.named(name.namespace());
        } catch (IOException e) {
            indexes.release(name.index());
            throw new NetworkSetupException("slot " + slotName + " of sandbox " + sandboxId + " is gone: " + e.getMessage(), e);
        }
        Slot slot = new Slot(name, SlotAddresses.of(config.pool(), name.index()), namespace, null);
        try {
            int hostLink = host.call(() -> {
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    return netlink.linkIndex(name.hostInterface());
                }
            });
            if (hostLink < 0) {
                throw new NetworkSetupException("slot " + slotName + " of sandbox " + sandboxId + " lost its host link " + name.hostInterface(), null);
            }
            configure(slot, sandboxId, policy, false);
        } catch (IOException | RuntimeException e) {
            tearDownQuietly(slot, e);
            throw e instanceof NetworkException ne ? ne : new NetworkSetupException("cannot adopt slot " + slotName + " of sandbox "
                    + sandboxId + ": " + e.getMessage(), e);
        }
        synchronized (lock) {
            assigned.add(slot);
        }
        LOG.log(System.Logger.Level.INFO, "network: slot {0} adopted for sandbox {1}", slotName, sandboxId);
        return slot;
    }

    /**
     * Removes the slots named as owned at {@link #open} that no {@link #adopt} took back (their sandbox's VM was gone
     * when the daemon restarted, or could not be adopted): the daemon calls it once its recovery is done. Returns
     * their names; a slot that cannot be removed is logged and its address stays out of use.
     */
    public List<String> reclaimUnadopted() {
        requireOpen();
        List<Integer> unadopted;
        synchronized (lock) {
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
                synchronized (lock) {
                    reclaimed.add(name.namespace());
                }
                LOG.log(System.Logger.Level.INFO, "network: reclaimed slot {0}: its sandbox was not adopted", name);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "network: slot {0} of a sandbox that was not adopted not removed: {1}", name,
                        e.getMessage());
            }
        }
        return removed;
    }

    /** Replaces the egress policy of a running sandbox in one transaction; from the next packet on it is in force. */
    public void replaceEgress(Slot slot, EgressPolicy egress) {
        requireOpen();
        requireAssigned(slot);
        List<Ipv4Cidr> denied = EgressRanges.denied(egress, alwaysDenied);
        try {
            slot.namespace().call(() -> Nftables.run(SlotRuleset.replaceEgress(denied)));
        } catch (IOException e) {
            throw new NetworkSetupException("cannot change the egress policy of sandbox " + slot.sandboxId() + " (slot " + slot.name() + "): "
                    + e.getMessage(), e);
        }
        slot.policy(slot.policy().withEgress(egress));
        LOG.log(System.Logger.Level.INFO, "network: egress policy of sandbox {0} (slot {1}) replaced: allow {2}, deny {3}",
                slot.sandboxId(), slot.name(), egress.allow(), egress.deny());
    }

    /**
     * Gives a slot back once its VM has stopped: host port entries and reservations, the veth pair, the host's
     * connection-tracking entries of its address and the namespace (with its TAP, rules and entries) are removed; the
     * address rests for the reuse delay. Calling it twice does nothing the second time.
     *
     * @throws NetworkSetupException a part could not be removed (the rest was; the address is not reused until the
     *                               next {@link #open} reclaims it)
     */
    public void release(Slot slot) {
        synchronized (slot) {
            if (slot.isReleased()) {
                return;
            }
            slot.markReleased();
        }
        synchronized (lock) {
            assigned.remove(slot);
            lock.notifyAll();
        }
        IOException failure = tearDown(slot);
        if (failure != null) {
            throw new NetworkSetupException("slot " + slot.name() + " of sandbox " + slot.sandboxId() + " was not removed completely: "
                    + failure.getMessage(), failure);
        }
        LOG.log(System.Logger.Level.INFO, "network: slot {0} of sandbox {1} released", slot.name(), slot.sandboxId());
    }

    /**
     * Applies the policy to a slot: host ports reserved and mapped (one call in the host namespace), the slot's sets
     * filled (one transaction in the slot). A fresh slot's sets are empty, so this only adds elements: a transaction
     * that also removes set elements or rules took 12-19 ms in-process here against 2-4 ms for adding alone (nftables
     * waits for readers of what it removes). A ready slot has no VM attached, so its empty egress set lets nothing
     * through meanwhile. {@code fresh} false: the whole table is written (adopt).
     */
    private void configure(Slot slot, String sandboxId, NetworkPolicy policy, boolean fresh) throws IOException {
        List<Ipv4Cidr> denied = EgressRanges.denied(policy.egress(), alwaysDenied);
        List<HostPortReservation> reservations = reservePorts(slot, policy.ports());
        try {
            List<PublishedPort> ports = new ArrayList<>();
            for (int i = 0; i < reservations.size(); i++) {
                ports.add(new PublishedPort(policy.ports().get(i).guestPort(), reservations.get(i).port()));
            }
            List<Integer> guestPorts = ports.stream().map(PublishedPort::guestPort).toList();
            String script = fresh
                    ? SlotRuleset.addElements(denied, guestPorts)
                    : SlotRuleset.create(slot.addresses(), denied, guestPorts);
            slot.namespace().call(() -> Nftables.run(script));
            slot.assign(sandboxId, policy, reservations, ports);
        } catch (IOException | RuntimeException e) {
            releasePorts(reservations, slot);
            throw e;
        }
    }

    /** Holds a host loopback port per request and maps it to the slot, in one call in the host namespace. */
    private List<HostPortReservation> reservePorts(Slot slot, List<PortRequest> requests) throws IOException {
        if (requests.isEmpty()) {
            return List.of();
        }
        return host.call(() -> {
            List<HostPortReservation> held = HostPorts.reserve(requests);
            try {
                List<PublishedPort> ports = new ArrayList<>();
                for (int i = 0; i < held.size(); i++) {
                    ports.add(new PublishedPort(requests.get(i).guestPort(), held.get(i).port()));
                }
                Nftables.run(HostRuleset.addPorts(config.prefix(), slot.addresses(), ports));
                return held;
            } catch (IOException | RuntimeException e) {
                held.forEach(HostPortReservation::close);
                throw e;
            }
        });
    }

    /** Unmaps and frees host ports; the first failure is returned (the ports are freed regardless). */
    private IOException releasePorts(List<HostPortReservation> reservations, Slot slot) {
        IOException failure = null;
        if (!reservations.isEmpty()) {
            List<PublishedPort> mapped = reservations.stream().map(r -> new PublishedPort(0, r.port())).toList();
            try {
                host.call(() -> Nftables.run(HostRuleset.deletePorts(config.prefix(), mapped)));
            } catch (IOException e) {
                failure = e;
                LOG.log(System.Logger.Level.WARNING, "network: host ports of slot {0} not unmapped: {1}", slot.name(), e.getMessage());
            }
        }
        reservations.forEach(HostPortReservation::close);
        return failure;
    }

    /** A ready slot, or null. The refiller is woken only when the acquire is done: it must not compete with it. */
    private Slot takeReady() {
        synchronized (lock) {
            return ready.pollFirst();
        }
    }

    private Slot buildNew() {
        OptionalInt index = indexes.take();
        if (index.isEmpty()) {
            throw new PoolExhaustedException("all " + indexes.capacity() + " network slots of " + config.pool()
                    + " are in use or resting for " + config.reuseDelay().toSeconds() + " s after release");
        }
        try {
            return builder.build(index.getAsInt());
        } catch (IOException | RuntimeException e) {
            if (e.getSuppressed().length == 0) {
                indexes.release(index.getAsInt());
            }
            throw new NetworkSetupException("cannot build network slot " + new SlotName(config.prefix(), index.getAsInt()) + ": "
                    + e.getMessage(), e);
        }
    }

    /** Removes every part of {@code slot}; returns the first failure (the other parts are removed regardless). */
    private IOException tearDown(Slot slot) {
        IOException failure = releasePorts(slot.reservations(), slot);
        if (slot.tap() != null) {
            slot.tap().close();
        }
        slot.namespace().close();
        try {
            builder.destroy(slot.slotName());
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        if (failure == null) {
            indexes.release(slot.slotName().index());
        } else {
            LOG.log(System.Logger.Level.ERROR, "network: slot {0} not removed completely; its address stays out of use: {1}",
                    slot.name(), failure.getMessage());
        }
        return failure;
    }

    private void tearDownQuietly(Slot slot, Exception cause) {
        slot.markReleased();
        IOException failure = tearDown(slot);
        if (failure != null) {
            cause.addSuppressed(failure);
        }
    }

    /** Keeps the ready pool full, in the background; waits when the pool is exhausted and backs off on failures. */
    private void refill() {
        int failures = 0;
        while (!closed) {
            synchronized (lock) {
                if (ready.size() >= config.readySlots()) {
                    waitQuietly(Duration.ofSeconds(1));
                    continue;
                }
            }
            OptionalInt index = indexes.take();
            if (index.isEmpty()) {
                synchronized (lock) {
                    waitQuietly(Duration.ofSeconds(1));
                }
                continue;
            }
            try {
                Slot slot = builder.build(index.getAsInt());
                failures = 0;
                synchronized (lock) {
                    if (!closed) {
                        ready.addLast(slot);
                        lock.notifyAll();
                        continue;
                    }
                }
                slot.markReleased();
                tearDown(slot);
            } catch (IOException | RuntimeException e) {
                if (e.getSuppressed().length == 0) {
                    indexes.release(index.getAsInt());
                }
                failures++;
                LOG.log(System.Logger.Level.WARNING, "network: building a ready slot failed ({0} in a row): {1}", failures, e.getMessage());
                synchronized (lock) {
                    waitQuietly(Duration.ofMillis(Math.min(30_000, 100L << Math.min(failures, 9))));
                }
            }
        }
    }

    private void waitQuietly(Duration duration) {
        try {
            lock.wait(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the ready pool is full (for tests and benchmarks); false on timeout. */
    public boolean awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (ready.size() < config.readySlots()) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || closed) {
                    return false;
                }
                waitQuietly(Duration.ofMillis(Math.min(left, 100)));
            }
            return true;
        }
    }

    public int readyCount() {
        synchronized (lock) {
            return ready.size();
        }
    }

    /** Slot names the last {@link #open} removed because no sandbox owned them. */
    public List<String> reclaimed() {
        return Collections.unmodifiableList(reclaimed);
    }

    /** Host settings that keep sandboxes from reaching out and that the daemon leaves to the operator (also logged). */
    public List<String> warnings() {
        return warnings;
    }

    public NetworkConfig config() {
        return config;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the network slots are closed");
        }
    }

    private void requireAssigned(Slot slot) {
        if (slot.isReleased() || slot.sandboxId() == null) {
            throw new IllegalStateException("slot " + slot.name() + " is not assigned to a sandbox");
        }
    }

    /**
     * Stops refilling and removes the ready slots. Slots still assigned (VMs that outlive the daemon) stay, and so does
     * the host table they need; with none left the host table goes too.
     */
    @Override
    public void close() {
        List<Slot> unused;
        boolean lastOut;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
        }
        if (refiller != null) {
            try {
                if (!refiller.join(REFILL_JOIN_LIMIT)) {
                    LOG.log(System.Logger.Level.WARNING, "network: the refill thread did not stop within {0}", REFILL_JOIN_LIMIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            unused = new ArrayList<>(ready);
            ready.clear();
            lastOut = assigned.isEmpty() && ownedNotAdopted.isEmpty();
        }
        for (Slot slot : unused) {
            slot.markReleased();
            IOException failure = tearDown(slot);
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "network: ready slot {0} not removed: {1}", slot.name(), failure.getMessage());
            }
        }
        if (lastOut) {
            try {
                host.call(() -> Nftables.run(HostRuleset.delete(config.prefix())));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "network: host table {0} not removed: {1}", config.prefix(), e.getMessage());
            }
        }
        host.close();
    }
}
