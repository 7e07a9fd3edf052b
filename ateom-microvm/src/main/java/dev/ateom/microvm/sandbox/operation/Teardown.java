package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.timing.CrashPoints;
import dev.ateom.microvm.vm.SandboxLayout;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Ends what runs for a sandbox (sync, CHV, virtiofsd, whichever exist) with SIGKILL, then gives its network slot
 * back (only once CHV, which holds the slot's TAP, is gone), removes the sockets the killed processes left and frees
 * the restore dir, as one unit that never throws: a problem is logged and the rest still runs. Suspend runs it after
 * its answer ({@link #runAfterAnswer}), delete and a failed create, clone or suspend before they settle.
 *
 * <p>Why SIGKILL and not {@code vmm.shutdown}: whenever this runs, the VM's state is either in a committed snapshot
 * (suspend) or being discarded (delete, a failed operation), so nothing the VM or its virtiofsd still hold matters.
 * A graceful stop would save nothing: CHV does not flush the guest's caches at {@code vmm.shutdown}, and every write
 * virtiofsd finished is already in the host's files. It only cost time (~0.4 s of the stand-in's JVM exit each).
 */
final class Teardown {
    private static final System.Logger LOG = System.getLogger(Teardown.class.getName());
    private final OperationContext context;

    Teardown(OperationContext context) { this.context = context; }

    /**
     * A suspend's teardown, once it has answered: on a virtual thread, the entry's pending teardown until done, then
     * the record drops the runtime (unless a resume has replaced it by then). A crash before that leaves a SUSPENDED
     * record with a runtime, whose processes recovery kills at start. The handles and runtime are taken here, under
     * the suspend's lock: a resume that does not wait for this teardown sets its own before the thread ends.
     */
    void runAfterAnswer(SandboxEntry entry) {
        String id = entry.record().id();
        LiveVm live = entry.live();
        entry.live(null);
        VmRuntime runtime = entry.record().runtime();
        SandboxLayout layout = context.layout(id);
        CompletableFuture<Void> vmGone = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        entry.tearingDown(vmGone, done);
        Thread.ofVirtual().name("teardown-" + id).start(() -> {
            try (var log = LogContext.with("sandbox", id)) {
                CrashPoints.before(Operation.SUSPEND.wireName(), "teardown");
                long start = System.nanoTime();
                startNextSharesAhead(entry, layout);
                if (live != null || runtime != null) {
                    // first, since unlinking hard links does not disturb a VM that still maps them; only this epoch's:
                    // a resume that did not wait lays its own beside it, once vmGone (so never while the root goes)
                    removeQuietly(layout.restoreDir(live != null ? live.epoch() : runtime.epoch()));
                    removeRestoreRootUnlessResuming(entry, layout);
                }
                stop(layout, live, runtime);
                vmGone.complete(null);
                long stopped = System.nanoTime();
                context.transitions().tornDown(entry, runtime);
                LOG.log(INFO, "processes of suspended sandbox " + id + " stopped in " + (stopped - start) / 1_000_000
                        + " ms, record updated in " + (System.nanoTime() - stopped) / 1_000_000 + " ms");
            } catch (RuntimeException e) {
                LOG.log(WARNING, "teardown of suspended sandbox " + id + " failed: " + e.getMessage(), e);
            } finally {
                vmGone.complete(null);
                done.complete(null);
            }
        });
    }

    /**
     * The next resume's three virtiofsd, started now within the budget (ShareSetsAhead), in the next epoch's run dir:
     * that resume claims them instead of waiting for their start; those the sandbox's standby started while it ran
     * ({@link StandbyShares}) are kept. Only while the record is SUSPENDED, on the entry's monitor, which the resume's
     * RESUMING also takes: a resume that has begun starts its own. Never throws.
     */
    private void startNextSharesAhead(SandboxEntry entry, SandboxLayout layout) {
        try {
            synchronized (entry) {
                SandboxRecord record = entry.record();
                if (record.state() != SandboxState.SUSPENDED || SpeedBaseline.active() || !context.sharesAhead().enabled()) return;
                NextEpochShares.start(context, record, layout, NextEpochShares.Room.MAKE);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(WARNING, "starting the next virtiofsd of " + layout.sandboxId() + " ahead failed (the resume starts its own): "
                    + e.getMessage());
        }
    }

    /**
     * Delete, and a failed create, clone or suspend: at once, under the operation's lock; every restore dir goes, and
     * the virtiofsd started ahead for a next resume.
     */
    void run(SandboxEntry entry) {
        SandboxLayout layout = context.layout(entry.record().id());
        context.sharesAhead().discard(entry.record().id());
        LiveVm live = entry.live();
        entry.live(null);
        stop(layout, live, entry.record().runtime());
        // the restore dirs hold hard links to snapshot files an OnDemand VM faulted from: only now are they free
        removeQuietly(layout.restoreRoot());
    }

    private void stop(SandboxLayout layout, LiveVm live, VmRuntime runtime) {
        if (live == null) return;
        closeQuietly(live.sync(), "system-info sync of " + layout.sandboxId());
        try {
            if (live.chv() != null) {
                live.chv().kill();
            } else if (runtime != null) {
                ProcessLeftovers.killChvNow(runtime); // adopted after a restart: not this daemon's child
            }
        } catch (RuntimeException e) {
            LOG.log(WARNING, "killing cloud-hypervisor of " + layout.sandboxId() + " failed: " + e.getMessage());
        }
        if (live.shares() != null) {
            try {
                live.shares().kill();
            } catch (RuntimeException e) {
                LOG.log(WARNING, "killing virtiofsd of " + layout.sandboxId() + " failed: " + e.getMessage());
            }
        }
        // the cgroup (with whatever still ran in it), the uid and the jail's root: only once CHV and virtiofsd are gone
        context.vms().jailer().release(layout.sandboxId(), live.epoch());
        context.networks().release(live.slot());
        // a killed CHV leaves its vsock socket (it removes it only at vm.shutdown); virtiofsd and the API socket are
        // removed by their launchers. The logs stay, for a look at the last run of a suspended sandbox.
        removeSockets(layout.epoch(live.epoch()).dir());
    }

    private static void removeSockets(Path epochDir) {
        List<Path> entries;
        try (Stream<Path> files = Files.list(epochDir)) {
            entries = files.toList();
        } catch (NoSuchFileException e) {
            return; // a later epoch's start removed it already
        } catch (IOException e) {
            LOG.log(WARNING, "cannot list " + epochDir + " for leftover sockets: " + e.getMessage());
            return;
        }
        for (Path entry : entries) {
            try {
                if (Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) Files.deleteIfExists(entry);
            } catch (NoSuchFileException e) {
                // gone meanwhile
            } catch (IOException e) {
                LOG.log(WARNING, "cannot remove leftover socket " + entry + ": " + e.getMessage());
            }
        }
    }

    private static void removeQuietly(Path dir) {
        try {
            TreeRemoval.removeRecursively(dir);
        } catch (RuntimeException e) {
            LOG.log(WARNING, "removing " + dir + " failed: " + e.getMessage());
        }
    }

    /**
     * The restore root goes with the last restore dir, but not once a resume has begun: that resume lays its own in it
     * without waiting for this teardown. On the entry's monitor, which the resume's change of state also holds.
     */
    private static void removeRestoreRootUnlessResuming(SandboxEntry entry, SandboxLayout layout) {
        synchronized (entry) {
            if (entry.record().state() == SandboxState.SUSPENDED) removeIfEmpty(layout.restoreRoot());
        }
    }

    private static void removeIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // a later epoch's restore dir is in it
        } catch (IOException e) {
            LOG.log(WARNING, "removing " + dir + " failed: " + e.getMessage());
        }
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
