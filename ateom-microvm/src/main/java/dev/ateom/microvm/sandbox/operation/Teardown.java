package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvClient;
import dev.ateom.chv.ChvTimeouts;
import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.timing.CrashPoints;
import dev.ateom.microvm.vm.SandboxLayout;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Stops what runs for a sandbox (sync, CHV, virtiofsd, whichever exist), then gives its network slot back (only
 * once CHV, which holds the slot's TAP, is gone) and frees its restore dirs, as one unit
 * that never throws: a problem is logged and the rest still runs. Suspend runs it after its answer
 * ({@link #runAfterAnswer}), delete and a failed create or clone before they settle.
 */
final class Teardown {
    private static final System.Logger LOG = System.getLogger(Teardown.class.getName());
    private final OperationContext context;

    Teardown(OperationContext context) { this.context = context; }

    /**
     * A suspend's teardown, once it has answered: on a virtual thread, the entry's pending teardown until done (the
     * next operation on the sandbox waits for it), then the record drops the runtime. A crash before that leaves
     * a SUSPENDED record with a runtime, whose processes recovery kills at start.
     */
    void runAfterAnswer(SandboxEntry entry) {
        String id = entry.record().id();
        CompletableFuture<Void> done = new CompletableFuture<>();
        entry.tearingDown(done);
        Thread.ofVirtual().name("teardown-" + id).start(() -> {
            try (var log = LogContext.with("sandbox", id)) {
                CrashPoints.before(Operation.SUSPEND.wireName(), "teardown");
                long start = System.nanoTime();
                run(entry);
                context.transitions().tornDown(entry);
                LOG.log(INFO, "processes of suspended sandbox " + id + " stopped in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            } catch (RuntimeException e) {
                LOG.log(WARNING, "teardown of suspended sandbox " + id + " failed: " + e.getMessage(), e);
            } finally {
                done.complete(null);
            }
        });
    }

    void run(SandboxEntry entry) {
        SandboxLayout layout = context.layout(entry.record().id());
        LiveVm live = entry.live();
        entry.live(null);
        if (live != null) stop(entry, layout, live);
        try {
            // the restore dirs hold hard links to snapshot files an OnDemand VM faulted from: only now are they free
            TreeRemoval.removeRecursively(layout.restoreRoot());
        } catch (RuntimeException e) {
            LOG.log(WARNING, "removing the restore dirs of " + layout.sandboxId() + " failed: " + e.getMessage());
        }
    }

    private void stop(SandboxEntry entry, SandboxLayout layout, LiveVm live) {
        closeQuietly(live.sync(), "system-info sync of " + layout.sandboxId());
        try {
            if (live.chv() != null) {
                live.chv().stop(VmStarter.STOP_GRACE);
            } else if (entry.record().runtime() != null) {
                stopAdoptedChv(entry.record().runtime());
            }
        } catch (RuntimeException e) {
            LOG.log(WARNING, "stopping cloud-hypervisor of " + layout.sandboxId() + " failed: " + e.getMessage());
        }
        if (live.shares() != null) {
            try {
                live.shares().stop();
            } catch (RuntimeException e) {
                LOG.log(WARNING, "stopping virtiofsd of " + layout.sandboxId() + " failed: " + e.getMessage());
            }
        }
        context.networks().release(live.slot());
    }

    /** A CHV this daemon did not start (adopted after a restart): ask it to exit, then make sure. */
    private static void stopAdoptedChv(VmRuntime runtime) {
        try (var client = new ChvClient(Path.of(runtime.apiSocket()), ChvTimeouts.all(Duration.ofSeconds(3)))) {
            client.shutdownVmm();
        } catch (RuntimeException e) {
            LOG.log(WARNING, "vmm.shutdown of adopted cloud-hypervisor " + runtime.chvPid() + " failed: " + e.getMessage());
        }
        ProcessLeftovers.killChv(runtime);
    }

    static void closeQuietly(AutoCloseable closeable, String what) {
        if (closeable == null) return;
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.log(WARNING, "closing " + what + " failed: " + e);
        }
    }
}
