package dev.ateom.microvm.sandbox;

import dev.ateom.chv.MemoryRestoreMode;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;

import java.util.List;

/**
 * The body of {@code POST /v1/sandboxes}. A create names the guest (kernel, rootfs, sizing); a clone sets
 * {@code fromSnapshot} and takes all of that from the snapshot, giving only a new id, identity and optionally
 * new system-info volumes, readiness, restore mode and idle timeout. Checked by {@link SandboxSpecValidator}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SandboxSpec(
        String id,
        IdentitySpec identity,
        Integer vcpus,
        Integer memoryMib,
        String kernel,
        String initramfs,
        String cmdline,
        String rootfs,
        List<String> durableDirs,
        SystemInfoSpec systemInfo,
        ReadinessSpec readiness,
        MemoryRestoreMode memoryRestoreMode,
        String fromSnapshot,
        NetworkSpec network,
        IdleSpec idle) {

    @JsonIgnore
    public boolean isClone() { return fromSnapshot != null; }

    /** The vcpus its VM gets (its jail's CPU quota follows them). */
    public int vcpusOrDefault() { return vcpus == null ? 1 : vcpus; }

    public ReadinessSpec readinessOrDefault() { return readiness == null ? ReadinessSpec.NONE : readiness; }

    public MemoryRestoreMode restoreModeOrDefault() { return memoryRestoreMode == null ? MemoryRestoreMode.Copy : memoryRestoreMode; }

    public List<String> durableDirsOrEmpty() { return durableDirs == null ? List.of() : durableDirs; }

    /** Whether the sandbox's VM has a NIC on a network slot. */
    @JsonIgnore
    public boolean hasNetwork() { return network != null && network.isOn(); }

    public SystemInfoSpec systemInfoOrEmpty() { return systemInfo == null ? new SystemInfoSpec(List.of()) : systemInfo; }

    /**
     * The spec a clone runs with: the snapshot's guest and sizing, the clone request's id, identity and overrides. The
     * network policy is the request's, or the source's without its host ports.
     */
    public SandboxSpec cloneOf(SandboxSpec source, String newId) {
        return new SandboxSpec(newId, identity, source.vcpus, source.memoryMib, source.kernel, source.initramfs, source.cmdline,
                source.rootfs, source.durableDirs, systemInfo != null ? systemInfo : source.systemInfo,
                readiness != null ? readiness : source.readiness,
                memoryRestoreMode != null ? memoryRestoreMode : source.memoryRestoreMode, null,
                network != null ? network : source.network == null ? null : source.network.forClone(),
                idle != null ? idle : source.idle);
    }

    public SandboxSpec withFromSnapshot(String snapshotId) {
        return new SandboxSpec(id, identity, vcpus, memoryMib, kernel, initramfs, cmdline, rootfs, durableDirs, systemInfo,
                readiness, memoryRestoreMode, snapshotId, network, idle);
    }

    public SandboxSpec withId(String newId) {
        return new SandboxSpec(newId, identity, vcpus, memoryMib, kernel, initramfs, cmdline, rootfs, durableDirs, systemInfo,
                readiness, memoryRestoreMode, fromSnapshot, network, idle);
    }

    public SandboxSpec withNetwork(NetworkSpec newNetwork) {
        return new SandboxSpec(id, identity, vcpus, memoryMib, kernel, initramfs, cmdline, rootfs, durableDirs, systemInfo,
                readiness, memoryRestoreMode, fromSnapshot, newNetwork, idle);
    }
}
