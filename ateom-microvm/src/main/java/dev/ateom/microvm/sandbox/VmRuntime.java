package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The processes and sockets of a sandbox while its VM exists. {@code epoch} counts boots and restores:
 * every one gets fresh socket paths under {@code runDir/e<epoch>/}. {@code network} is its network slot (null
 * without a network); every boot and restore gets a slot of its own. {@code restoredFromSnapshotId} is the snapshot this
 * VM was restored from (a clone's source, the snapshot a resume started from), null for a VM that booted: the parent
 * every snapshot taken of this VM records.
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
        @JsonInclude(JsonInclude.Include.NON_NULL) String restoredFromSnapshotId) {

    /** The same processes, recorded as restored from {@code snapshotId} (null: booted). */
    public VmRuntime restoredFrom(String snapshotId) {
        return new VmRuntime(runDir, epoch, chvPid, apiSocket, vsockSocket, consoleLog, chvLog, shares, network, snapshotId);
    }
}
