package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.ArrayList;
import java.util.List;

/**
 * A sandbox's {@code network}: absent or {@code enabled: false} means no NIC at all; otherwise the sandbox runs on a
 * network slot of its own with this egress policy and these published ports. The daemon writes the host port it
 * picked into each port's {@code host}, so a resumed sandbox asks for the same ports again (kept when still free).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NetworkSpec(Boolean enabled, EgressSpec egress, List<PortSpec> ports) {

    /** Whether the sandbox gets a NIC: the object is present and does not say {@code enabled: false}. */
    @JsonIgnore
    public boolean isOn() { return enabled == null || enabled; }

    public List<PortSpec> portsOrEmpty() { return ports == null ? List.of() : ports; }

    public NetworkSpec withEgress(EgressSpec newEgress) { return new NetworkSpec(enabled, newEgress, ports); }

    /** The same ports with the host ports the daemon picked (guest port by guest port). */
    public NetworkSpec withHostPorts(List<PortSpec> published) {
        List<PortSpec> updated = new ArrayList<>();
        for (PortSpec port : portsOrEmpty()) {
            int host = published.stream().filter(p -> p.guest().equals(port.guest())).mapToInt(PortSpec::host).findFirst().orElse(0);
            updated.add(new PortSpec(port.guest(), host == 0 ? port.host() : host));
        }
        return new NetworkSpec(enabled, egress, ports == null ? null : updated);
    }

    /** What a clone inherits: the policy, but no host port preference (the source may still hold them). */
    public NetworkSpec forClone() {
        return new NetworkSpec(enabled, egress, ports == null ? null : ports.stream().map(p -> new PortSpec(p.guest(), null)).toList());
    }
}
