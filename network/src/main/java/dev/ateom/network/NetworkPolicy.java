package dev.ateom.network;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A sandbox's network wishes: where it may connect to, and which of its ports the host may reach. */
public record NetworkPolicy(EgressPolicy egress, List<PortRequest> ports) {
    public static final NetworkPolicy DEFAULT = new NetworkPolicy(EgressPolicy.DEFAULT, List.of());

    public NetworkPolicy {
        egress = egress == null ? EgressPolicy.DEFAULT : egress;
        ports = ports == null ? List.of() : List.copyOf(ports);
    }

    /**
     * Checks the ports against the limits, naming the field of the first problem ({@code field} is the JSON path of
     * the network object, e.g. {@code network}): at most {@code maxPorts} ports, each 1-65535, none twice.
     */
    public NetworkPolicy validate(String field, int maxPorts) {
        if (ports.size() > maxPorts) {
            throw new InvalidNetworkInputException(field + ".ports", ports.size() + " ports requested, at most " + maxPorts);
        }
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            PortRequest port = ports.get(i);
            if (port.guestPort() < 1 || port.guestPort() > 65535) {
                throw new InvalidNetworkInputException(field + ".ports[" + i + "].guest", port.guestPort() + " is not a port (1-65535)");
            }
            if (port.hostPort() < 0 || port.hostPort() > 65535) {
                throw new InvalidNetworkInputException(field + ".ports[" + i + "].host", port.hostPort() + " is not a port (1-65535, or 0 to pick one)");
            }
            if (!seen.add(port.guestPort())) {
                throw new InvalidNetworkInputException(field + ".ports[" + i + "].guest", "port " + port.guestPort() + " is published twice");
            }
        }
        return this;
    }

    public NetworkPolicy withEgress(EgressPolicy newEgress) {
        return new NetworkPolicy(newEgress, ports);
    }
}
