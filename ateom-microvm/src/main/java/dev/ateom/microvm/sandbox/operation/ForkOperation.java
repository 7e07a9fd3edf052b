package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.ForkRequest;
import dev.ateom.microvm.sandbox.ForkResult;
import dev.ateom.microvm.sandbox.ForkedClone;
import dev.ateom.microvm.sandbox.InvalidStateException;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.timing.OperationProgress;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.INFO;

/**
 * Fork: one checkpoint when the source runs (its latest snapshot when it is suspended), then N clones restored in
 * parallel, at most as many at a time as the restore slots allow. It composes the manager's own checkpoint and
 * create, each under its own sandbox's lock, so a fork holds no lock of its own while its clones are restored. Clones
 * of a checkpoint of its own have no next clone made ahead ({@link NextCloneAhead#SKIP}).
 */
public final class ForkOperation {
    private static final System.Logger LOG = System.getLogger(ForkOperation.class.getName());

    private final Semaphore restoreSlots;
    private final Function<String, OperationResult> checkpoint;
    private final BiFunction<SandboxSpec, NextCloneAhead, OperationResult> create;
    private final Supplier<String> ids;

    /** @param create a clone, and whether it has its snapshot's next clone made ahead once it succeeded */
    public ForkOperation(Semaphore restoreSlots, Function<String, OperationResult> checkpoint,
                         BiFunction<SandboxSpec, NextCloneAhead, OperationResult> create, Supplier<String> ids) {
        this.restoreSlots = restoreSlots;
        this.checkpoint = checkpoint;
        this.create = create;
        this.ids = ids;
    }

    public ForkResult run(SandboxRecord source, ForkRequest request) {
        String id = source.id();
        long start = System.nanoTime();
        OperationResult checkpointed = null;
        String snapshotId;
        if (source.state() == SandboxState.RUNNING) {
            checkpointed = checkpoint.apply(id);
            snapshotId = checkpointed.snapshotId();
        } else if (source.state() == SandboxState.SUSPENDED && source.latestSnapshotId() != null) {
            snapshotId = source.latestSnapshotId();
        } else {
            throw new InvalidStateException(id, source.state(), Operation.FORK);
        }
        OperationProgress progress = OperationProgress.current();
        progress.admitted(id); // a running source was admitted by its checkpoint already
        progress.step("clones");
        long cloning = System.nanoTime();
        // a checkpoint of its own is cloned by this fork alone; a suspended source's latest snapshot may be forked again
        NextCloneAhead nextClone = checkpointed != null ? NextCloneAhead.SKIP : NextCloneAhead.MAKE;
        List<ForkedClone> clones = new ParallelClones(restoreSlots).run(
                request.clones(id, source.identity().namespace()), snapshotId, ids, spec -> create.apply(spec, nextClone));
        Map<String, Long> timings = new LinkedHashMap<>();
        timings.put("checkpoint", (cloning - start) / 1_000_000);
        timings.put("clones", (System.nanoTime() - cloning) / 1_000_000);
        timings.put("total", (System.nanoTime() - start) / 1_000_000);
        int failed = (int) clones.stream().filter(c -> c.error() != null).count();
        LOG.log(INFO, "fork of sandbox " + id + " from snapshot " + snapshotId + ": " + (clones.size() - failed) + " clone(s) running, "
                + failed + " failed, in " + timings.get("total") + " ms");
        return new ForkResult(id, snapshotId, clones.size() - failed, failed, clones, timings,
                checkpointed == null ? null : checkpointed.timingsMs());
    }
}
