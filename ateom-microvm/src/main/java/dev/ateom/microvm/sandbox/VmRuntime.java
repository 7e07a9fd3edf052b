package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The processes and sockets of a sandbox while its VM exists. {@code epoch} counts boots and restores:
 * every one gets fresh socket paths under {@code runDir/e<epoch>/}. {@code network} is its network slot (null
 * without a network); every boot and restore gets a slot of its own. {@code restoredFromSnapshotId} is the snapshot this
 * VM was restored from (a clone's source, the snapshot a resume started from), null for a VM that booted: the parent
 * every snapshot taken of this VM records. {@code jail} is its VMM's jail (null when {@code --jail off}); then
 * {@code chvPid} is the jail launcher's, CHV's parent.
 */
public record VmRuntime(
        String runDir,
        int epoch,
        long chvPid,
        String apiSocket,
        String vsockSocket,
        String consoleLog,
        String chvLog,
        List<ShareRuntime> shares,
        @JsonInclude(JsonInclude.Include.NON_NULL) NetworkRuntime network,
        @JsonInclude(JsonInclude.Include.NON_NULL) String restoredFromSnapshotId,
        @JsonInclude(JsonInclude.Include.NON_NULL) JailRuntime jail) {

    /** A VM not jailed ({@code --jail off}). */
    public VmRuntime(String runDir, int epoch, long chvPid, String apiSocket, String vsockSocket, String consoleLog, String chvLog,
                     List<ShareRuntime> shares, NetworkRuntime network, String restoredFromSnapshotId) {
        this(runDir, epoch, chvPid, apiSocket, vsockSocket, consoleLog, chvLog, shares, network, restoredFromSnapshotId, null);
    }

    /** The same processes, recorded as restored from {@code snapshotId} (null: booted). */
    public VmRuntime restoredFrom(String snapshotId) {
        return new VmRuntime(runDir, epoch, chvPid, apiSocket, vsockSocket, consoleLog, chvLog, shares, network, snapshotId, jail);
    }

    /** The same processes, their VMM in {@code jail}. */
    public VmRuntime withJail(JailRuntime value) {
        return new VmRuntime(runDir, epoch, chvPid, apiSocket, vsockSocket, consoleLog, chvLog, shares, network, restoredFromSnapshotId, value);
    }
}
