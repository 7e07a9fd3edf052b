package dev.ateom.microvm.host;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

import java.util.List;

/**
 * {@code GET /v1/host}: the host's facts, the Cloud Hypervisor found, and the warnings the daemon logged at start
 * about what they mean for sandboxes (e.g. snapshots failing on {@code kvm_pvm}).
 */
public record HostReport(@JsonUnwrapped HostFacts facts, HypervisorFacts cloudHypervisor, List<String> warnings) {
    public HostReport {
        warnings = List.copyOf(warnings);
    }
}
