package dev.ateom.network;

import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.TapDevice;
import java.util.List;

/**
 * One sandbox's network: a namespace of its own, a veth pair to the host and a TAP for the VMM, with the guest
 * addressing of {@link GuestNetwork}. Handed out by {@link NetworkSlots#acquire} (or {@link NetworkSlots#adopt}
 * after a daemon restart) and given back with {@link NetworkSlots#release}.
 */
public final class Slot {
    private final SlotName name;
    private final SlotAddresses addresses;
    private final NetNamespace namespace;
    private final TapDevice tap;
    private volatile String sandboxId;
    private volatile NetworkPolicy policy = NetworkPolicy.DEFAULT;
    private volatile List<HostPortReservation> reservations = List.of();
    private volatile List<PublishedPort> publishedPorts = List.of();
    private volatile boolean released;

    Slot(SlotName name, SlotAddresses addresses, NetNamespace namespace, TapDevice tap) {
        this.name = name;
        this.addresses = addresses;
        this.namespace = namespace;
        this.tap = tap;
    }

    /** The slot's name: its network namespace ({@code ateom-s12}); what a sandbox record keeps. */
    public String name() {
        return name.namespace();
    }

    public SlotName slotName() {
        return name;
    }

    /** The address the host side of the link holds. */
    public Ipv4Address hostAddress() {
        return addresses.host();
    }

    /** The address the guest's connections leave the slot with (what the outside sees, before the host's masquerade). */
    public Ipv4Address slotAddress() {
        return addresses.slot();
    }

    public SlotAddresses addresses() {
        return addresses;
    }

    public String sandboxId() {
        return sandboxId;
    }

    public EgressPolicy egress() {
        return policy.egress();
    }

    public NetworkPolicy policy() {
        return policy;
    }

    /** Guest ports and the loopback ports of the host namespace they are reachable at. */
    public List<PublishedPort> publishedPorts() {
        return publishedPorts;
    }

    /** Whether this slot holds its TAP (false after {@link NetworkSlots#adopt}: the running VMM holds it). */
    public boolean hasTap() {
        return tap != null;
    }

    /**
     * The TAP descriptor to pass to the VMM (SCM_RIGHTS: CHV receives its own duplicate). Opened with
     * {@link TapDevice#FLAGS}; this slot keeps owning it, the caller must not close it.
     */
    public int tapFd() {
        if (tap == null) {
            throw new IllegalStateException("slot " + name + " was adopted from a running VM and holds no TAP descriptor");
        }
        return tap.fd();
    }

    public boolean isReleased() {
        return released;
    }

    NetNamespace namespace() {
        return namespace;
    }

    TapDevice tap() {
        return tap;
    }

    List<HostPortReservation> reservations() {
        return reservations;
    }

    void assign(String newSandboxId, NetworkPolicy newPolicy, List<HostPortReservation> newReservations, List<PublishedPort> ports) {
        this.sandboxId = newSandboxId;
        this.policy = newPolicy;
        this.reservations = List.copyOf(newReservations);
        this.publishedPorts = List.copyOf(ports);
    }

    void policy(NetworkPolicy newPolicy) {
        this.policy = newPolicy;
    }

    void markReleased() {
        released = true;
    }

    @Override
    public String toString() {
        return name + (sandboxId == null ? " (ready)" : " (sandbox " + sandboxId + ")");
    }
}
