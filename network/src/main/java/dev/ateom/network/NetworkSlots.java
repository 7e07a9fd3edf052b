package dev.ateom.network;

import dev.ateom.network.firewall.DroppingForwardChain;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The daemon's network slots: the assignment of a slot to a sandbox with its policy, live policy changes and release,
 * on top of a pool of ready slots ({@link ReadySlots}, so a create, resume or clone never waits for the kernel), the
 * reclaiming of what a previous daemon left ({@link SlotReclaim}) and the host's rules ({@link HostFirewall}).
 *
 * <pre>{@code
 * NetworkSlots slots = NetworkSlots.open(config, ownedSlotNames);   // reclaims the rest, installs the host's rules
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
    private static final String POLICY_FIELD = "network";

    private final NetworkConfig config;
    private final NetNamespace host;
    private final SlotBuilder builder;
    private final SlotIndexes indexes;
    private final SlotPolicies policies;
    private final SlotTeardown teardown;
    private final ReadySlots ready;
    private final SlotReclaim reclaim;
    private final Set<Slot> assigned = new HashSet<>();
    private HostFirewall firewall;
    private volatile boolean closed;

    private NetworkSlots(NetworkConfig config, NetNamespace host) {
        this.config = config;
        this.host = host;
        this.builder = new SlotBuilder(host, config.prefix(), config.pool());
        this.indexes = new SlotIndexes(config.capacity(), config.reuseDelay());
        this.policies = new SlotPolicies(host, config);
        this.teardown = new SlotTeardown(policies, builder, indexes);
        this.ready = new ReadySlots(config.readySlots(), indexes, builder, teardown);
        this.reclaim = new SlotReclaim(host, config, builder, indexes);
    }

    /**
     * Checks the host, reclaims every namespace, veth and connection-tracking entry with the configured prefix except
     * those of {@code ownedSlots} (slot names from the records of sandboxes whose VM still runs; call {@link #adopt}
     * for each), installs the host's rules afresh, and starts filling the ready pool.
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
        reclaim.keepOwned(ownedSlots);
        reclaim.removeLeftovers();
        firewall = HostFirewall.install(host, config);
        ready.start();
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
        Slot slot = ready.take();
        if (slot == null) {
            slot = buildNew();
        }
        try {
            policies.apply(slot, sandboxId, policy, true);
        } catch (IOException | RuntimeException e) {
            teardown.tearDownAfter(slot, e);
            throw e instanceof NetworkException ne ? ne : new NetworkSetupException("cannot configure slot " + slot.name()
                    + " for sandbox " + sandboxId + ": " + e.getMessage(), e);
        }
        LOG.log(System.Logger.Level.INFO, "network: slot {0} ({1}) assigned to sandbox {2}, ports {3}", slot.name(), slot.slotAddress(),
                sandboxId, slot.publishedPorts());
        synchronized (assigned) {
            assigned.add(slot);
        }
        ready.wake(); // builds a replacement
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
        SlotName name = reclaim.adopting(slotName);
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
            policies.apply(slot, sandboxId, policy, false);
        } catch (IOException | RuntimeException e) {
            teardown.tearDownAfter(slot, e);
            throw e instanceof NetworkException ne ? ne : new NetworkSetupException("cannot adopt slot " + slotName + " of sandbox "
                    + sandboxId + ": " + e.getMessage(), e);
        }
        synchronized (assigned) {
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
        return reclaim.reclaimUnadopted();
    }

    /** Replaces the egress policy of a running sandbox in one transaction; from the next packet on it is in force. */
    public void replaceEgress(Slot slot, EgressPolicy egress) {
        requireOpen();
        requireAssigned(slot);
        try {
            policies.replaceEgress(slot, egress);
        } catch (IOException e) {
            throw new NetworkSetupException("cannot change the egress policy of sandbox " + slot.sandboxId() + " (slot " + slot.name() + "): "
                    + e.getMessage(), e);
        }
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
        synchronized (assigned) {
            assigned.remove(slot);
        }
        ready.wake();
        IOException failure = teardown.tearDown(slot);
        if (failure != null) {
            throw new NetworkSetupException("slot " + slot.name() + " of sandbox " + slot.sandboxId() + " was not removed completely: "
                    + failure.getMessage(), failure);
        }
        LOG.log(System.Logger.Level.INFO, "network: slot {0} of sandbox {1} released", slot.name(), slot.sandboxId());
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

    /** Waits until the ready pool is full (for tests and benchmarks); false on timeout. */
    public boolean awaitReady(Duration timeout) {
        return ready.awaitFull(timeout);
    }

    public int readyCount() {
        return ready.size();
    }

    /** Slot names the last {@link #open} (and {@link #reclaimUnadopted}) removed because no sandbox owned them. */
    public List<String> reclaimed() {
        return reclaim.reclaimed();
    }

    /** Host settings that keep sandboxes from reaching out and that the daemon leaves to the operator (also logged). */
    public List<String> warnings() {
        return firewall == null ? List.of() : firewall.warnings();
    }

    /** Other software's forward chains that drop by default and got the daemon's rules letting its slots through. */
    public List<DroppingForwardChain> openedForwardChains() {
        return firewall == null ? List.of() : firewall.opened();
    }

    public NetworkConfig config() {
        return config;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the network slots are closed");
        }
    }

    private static void requireAssigned(Slot slot) {
        if (slot.isReleased() || slot.sandboxId() == null) {
            throw new IllegalStateException("slot " + slot.name() + " is not assigned to a sandbox");
        }
    }

    /**
     * Stops refilling and removes the ready slots. Slots still assigned (VMs that outlive the daemon) stay, and so do
     * the host's rules they need; with none left the host's rules go too.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ready.close();
        boolean lastOut;
        synchronized (assigned) {
            lastOut = assigned.isEmpty() && !reclaim.ownedWaiting();
        }
        if (lastOut && firewall != null) {
            firewall.remove();
        } else if (lastOut) {
            // an open that failed before the host's rules were complete: its table, if it got that far
            try {
                host.call(() -> Nftables.run(HostRuleset.delete(config.prefix())));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "network: host table {0} not removed: {1}", config.prefix(), e.getMessage());
            }
        }
        host.close();
    }
}
