package dev.ateom.microvm.sandbox;

import java.util.List;

/**
 * The network slot of a sandbox whose VM runs: its name (the network namespace), the address of the host's end of
 * its link, the address its connections leave the slot with (what a server outside sees, unless the host
 * masquerades it again), the guest's own (constant, slot-local) address and the published ports in use.
 */
public record NetworkRuntime(String slot, String hostAddress, String slotAddress, String guestAddress, List<PortSpec> ports) {
    public NetworkRuntime {
        ports = ports == null ? List.of() : List.copyOf(ports);
    }
}
