package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvClient;
import dev.ateom.chv.VmState;
import dev.ateom.microvm.sandbox.VmRuntime;

import java.nio.file.Path;

/** Talking to the VM of a sandbox that has one: the CHV this daemon started, or an adopted one by its socket. */
final class RunningVm {
    private RunningVm() {}

    /** The client of the VM's CHV: the one this daemon started, or one on the socket of an adopted CHV. */
    static ChvClient client(SandboxEntry entry) {
        LiveVm live = entry.live();
        if (live != null && live.chv() != null) return live.chv().client();
        VmRuntime runtime = entry.record().runtime();
        if (runtime == null) throw new IllegalStateException("the sandbox has no VM");
        return new ChvClient(Path.of(runtime.apiSocket()));
    }

    /**
     * The VMM's version, for a snapshot's manifest: what it answered when it became ready, or (a VMM adopted after a
     * daemon restart, whose start this daemon did not see) its answer now.
     */
    static String chvVersion(SandboxEntry entry, ChvClient chv) {
        LiveVm live = entry.live();
        if (live != null && live.chv() != null) return live.chv().version();
        return chv.ping().version();
    }

    /** Whether the VM answers and runs (not paused, not gone). */
    static boolean isRunning(SandboxEntry entry) {
        try {
            return client(entry).info().state() == VmState.Running;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
