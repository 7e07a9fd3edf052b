package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.config.ConfigException;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;
import dev.ateom.network.EgressPolicy;
import dev.ateom.network.GuestNetwork;
import dev.ateom.network.InvalidNetworkInputException;
import dev.ateom.network.NetworkConfig;
import dev.ateom.network.NetworkConfigException;
import dev.ateom.network.NetworkPolicy;
import dev.ateom.network.NetworkSetupException;
import dev.ateom.network.NetworkSlots;
import dev.ateom.network.PoolExhaustedException;
import dev.ateom.network.PortRequest;
import dev.ateom.network.PublishedPort;
import dev.ateom.network.Slot;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The daemon's side of the {@code network} module: whether sandboxes can have a network at all (and if not, why),
 * the translation of a sandbox's {@link NetworkSpec} into the module's policy (errors name the spec's fields), and
 * the slots' lifecycle around the operations. Opened by the recovery at start, which knows the slots that running
 * sandboxes own; everything else with the daemon's prefix is reclaimed then.
 */
public final class SandboxNetworks implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SandboxNetworks.class.getName());
    /** What turns networking on, for the messages that say it is off. */
    public static final String HOW_TO_ENABLE = "start the daemon with --network=true (as root, with the nftables package installed)";

    private final NetworkConfig config;
    private volatile NetworkSlots slots;
    private volatile String unavailable;

    private SandboxNetworks(NetworkConfig config, String unavailable) {
        this.config = config;
        this.unavailable = unavailable;
    }

    /** Networking as configured: {@code config} null means it is off. Nothing is touched before {@link #open}. */
    public static SandboxNetworks of(NetworkConfig config) {
        return new SandboxNetworks(config, config == null ? "networking is off: " + HOW_TO_ENABLE : "networking is not started yet");
    }

    /**
     * Takes the host's slots in hand: every slot with the daemon's prefix but {@code ownedSlots} is removed, the
     * ready pool starts filling. A host that cannot run slots (no nftables library, no {@code /dev/net/tun}, not
     * root) leaves networking unavailable with the reason, which networked requests then get (503).
     *
     * @throws ConfigException the configured pool does not fit this host (the daemon must not start); names the option
     */
    public void open(Set<String> ownedSlots) {
        if (config == null) return;
        try {
            slots = NetworkSlots.open(config, ownedSlots);
            unavailable = null;
            LOG.log(INFO, "network: slots of " + config.pool() + " (prefix " + config.prefix() + ", " + config.readySlots()
                    + " kept ready); reclaimed " + slots.reclaimed());
        } catch (NetworkSetupException e) {
            unavailable = "networking cannot start on this host: " + e.getMessage();
            LOG.log(WARNING, "network: " + unavailable);
        } catch (NetworkConfigException e) {
            throw new ConfigException("--" + e.option() + ": " + e.reason(), e);
        }
    }

    /** The running sandboxes' slots, by their records: what {@link #open} must leave alone. */
    public static Set<String> ownedBy(Collection<SandboxRecord> records) {
        return records.stream().filter(r -> r.state() == SandboxState.RUNNING && r.runtime() != null && r.runtime().network() != null)
                .map(r -> r.runtime().network().slot()).collect(Collectors.toSet());
    }

    /** After the recovery: slots of running sandboxes that could not be adopted go. */
    public void reclaimUnadopted() {
        if (slots != null) slots.reclaimUnadopted();
    }

    /** Refuses (503, saying why) when sandboxes cannot have a network now. */
    public void requireAvailable(String sandboxId, SandboxState state) {
        String why = unavailable;
        if (why != null) throw new NetworkUnavailableException(why, sandboxId, state);
    }

    /** The violations of a {@code network} object, each naming its field under {@code field}. */
    public List<SpecViolation> check(NetworkSpec spec, String field) {
        List<SpecViolation> out = new ArrayList<>();
        if (spec == null || !spec.isOn()) return out;
        try {
            policyOf(spec, field);
        } catch (InvalidNetworkInputException e) {
            out.add(new SpecViolation(e.field(), e.reason()));
        }
        return out;
    }

    /** The violations of an egress policy (the body of the egress endpoint), each naming its field under {@code field}. */
    public static List<SpecViolation> checkEgress(EgressSpec egress, String field) {
        try {
            egressOf(egress, field);
            return List.of();
        } catch (InvalidNetworkInputException e) {
            return List.of(new SpecViolation(e.field(), e.reason()));
        }
    }

    /**
     * A slot for the sandbox with its policy in force.
     *
     * @throws NetworkUnavailableException networking is off or the pool is exhausted (503)
     * @throws NetworkSetupException       building the slot failed (nothing of it is left)
     */
    public Slot acquire(SandboxRecord record, SandboxState stateOnRefusal) {
        requireAvailable(record.id(), stateOnRefusal);
        try {
            return slots.acquire(record.id(), policyOf(record.spec().network(), "network"));
        } catch (PoolExhaustedException e) {
            throw new NetworkUnavailableException("no network slot is free: " + e.getMessage(), record.id(), stateOnRefusal);
        }
    }

    /** The slot of a running sandboxes adopted after a daemon restart, its policy and published ports applied again. */
    public Slot adopt(SandboxRecord record) {
        requireAvailable(record.id(), record.state());
        return slots.adopt(record.runtime().network().slot(), record.id(), policyOf(record.spec().network(), "network"));
    }

    /** Puts a new egress policy in force on a running sandbox's slot, atomically. */
    public void replaceEgress(Slot slot, EgressSpec egress) {
        slots.replaceEgress(slot, egressOf(egress, "egress"));
    }

    /** Gives a slot back (its VM has stopped); a problem is logged, never thrown: the next start reclaims what is left. */
    public void release(Slot slot) {
        if (slot == null || slots == null) return;
        try {
            slots.release(slot);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "network: releasing slot " + slot.name() + " of sandbox " + slot.sandboxId() + " failed: " + e.getMessage());
        }
    }

    /** What the record and {@code GET /v1/sandboxes/{id}} show of a slot. */
    public static NetworkRuntime runtimeOf(Slot slot) {
        List<PortSpec> ports = slot.publishedPorts().stream().map(p -> new PortSpec(p.guestPort(), p.hostPort())).toList();
        return new NetworkRuntime(slot.name(), slot.hostAddress().toString(), slot.slotAddress().toString(),
                GuestNetwork.GUEST_ADDRESS.toString(), ports);
    }

    /** The published ports of a slot as the spec records them (the host ports a resume asks for again). */
    public static List<PortSpec> portsOf(Slot slot) {
        List<PortSpec> ports = new ArrayList<>();
        for (PublishedPort port : slot.publishedPorts()) ports.add(new PortSpec(port.guestPort(), port.hostPort()));
        return ports;
    }

    private NetworkPolicy policyOf(NetworkSpec spec, String field) {
        List<PortRequest> ports = new ArrayList<>();
        List<PortSpec> requested = spec.portsOrEmpty();
        for (int i = 0; i < requested.size(); i++) {
            PortSpec port = requested.get(i);
            if (port == null || port.guest() == null) {
                throw new InvalidNetworkInputException(field + ".ports[" + i + "].guest", "is required: the guest's TCP port (1-65535)");
            }
            ports.add(new PortRequest(port.guest(), port.host() == null ? 0 : port.host()));
        }
        int maxPorts = config == null ? NetworkConfig.DEFAULT_MAX_PUBLISHED_PORTS : config.maxPublishedPorts();
        return new NetworkPolicy(egressOf(spec.egress(), field + ".egress"), ports).validate(field, maxPorts);
    }

    private static EgressPolicy egressOf(EgressSpec egress, String field) {
        if (egress == null) return EgressPolicy.DEFAULT;
        return EgressPolicy.parse(field, egress.allow(), egress.deny());
    }

    @Override
    public void close() {
        NetworkSlots open = slots;
        if (open != null) open.close();
    }
}
