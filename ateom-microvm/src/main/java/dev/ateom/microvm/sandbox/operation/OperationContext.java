package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.HostTools;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.sandbox.GuestProbe;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxNetworks;
import dev.ateom.microvm.sandbox.SandboxStore;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotWriter;
import dev.ateom.microvm.sandbox.SystemInfoVolumes;
import dev.ateom.microvm.timing.OperationMetrics;
import dev.ateom.microvm.timing.StepTimer;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.virtiofsd.ShareSetsAhead;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

/** What every operation works with, handed to each instead of calling back into the manager. */
public record OperationContext(DaemonConfig config, SandboxStore store, VmStarter vms, HostTools tools,
                               SnapshotCatalog snapshots, SnapshotWriter snapshotWriter, SystemInfoVolumes systemInfo, GuestProbe probe, OperationMetrics metrics,
                               Transitions transitions, SandboxNetworks networks) {

    /**
     * The virtiofsd launcher (waits for the start's probe of virtiofsd if it still runs); null when the host has no
     * usable virtiofsd (then no VM was ever started, and none is to be cleaned).
     */
    VirtiofsdLauncher virtiofsd() { return tools.virtiofsdLauncher(); }

    /** The virtiofsd a suspend's teardown starts for the sandbox's next resume. */
    ShareSetsAhead sharesAhead() { return vms.sharesAhead(); }

    SandboxLayout layout(String sandboxId) { return SandboxLayout.of(config, sandboxId); }

    /** The timer of one run of {@code operation}: every step is timed, and is a crash and a fail point. */
    StepTimer timer(Operation operation) { return new StepTimer(operation.wireName()); }

    BringUp bringUp() { return new BringUp(this); }

    Teardown teardown() { return new Teardown(this); }

    StandbyShares standbyShares() { return new StandbyShares(this); }
}
