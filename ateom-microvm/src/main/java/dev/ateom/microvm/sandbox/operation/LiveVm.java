package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvProcess;
import dev.ateom.network.Slot;
import dev.ateom.virtiofsd.ShareSet;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The in-memory handles of a sandbox whose VM exists: its CHV process, its virtiofsd shares and the
 * system-info sync. Adopted sandboxes (after a daemon restart) have {@code chv == null}: they are driven
 * through the API socket alone. {@code onDemandSource} is the memory-ranges the VM was restored from with
 * OnDemand (it faults pages in from it), kept until the VM stops. {@code slot} is its network slot (null without a
 * network), released once the VM has stopped.
 */
record LiveVm(int epoch, ChvProcess chv, ShareSet shares, AutoCloseable sync, Optional<Path> onDemandSource, Slot slot) {
    LiveVm withSync(AutoCloseable newSync) { return new LiveVm(epoch, chv, shares, newSync, onDemandSource, slot); }
}
