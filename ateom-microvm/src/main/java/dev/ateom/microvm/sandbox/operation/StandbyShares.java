package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.sandbox.VmRuntime;

import java.io.IOException;
import java.time.Duration;

import static java.lang.System.Logger.Level.WARNING;

/**
 * A running sandbox's next resume's virtiofsd, started once it has run for {@code --virtiofsd-ahead-running-ms}
 * (within the budget of {@code --virtiofsd-ahead}, only where there is room: they never push out a suspended
 * sandbox's set). A resume right after its suspend then finds them serving instead of waiting for the start its
 * suspend's teardown would begin (the teardown keeps them), and the teardown starts nothing, which on a busy host is
 * CPU the resume gets.
 *
 * <p>Why after a while and not at once: the start takes CPU (three processes, their namespaces and the jail's
 * cgroup), and right after a bring-up that is what the sandbox's next operation needs; a suspend that soon gets its set
 * from its teardown, as before. The price: a running sandbox keeps three idle virtiofsd beside its own (a few MiB), as a
 * suspended one already did.
 *
 * <p>The set serves the sandbox's own dirs at the next epoch's paths; what would make it wrong stops it: the durable
 * dir laid again at the resume, a delete, a failed operation, the daemon's stop (ShareSetsAhead). Scheduled on a
 * virtual thread that sleeps; one that wakes to find the sandbox no longer running at the same epoch starts nothing.
 */
final class StandbyShares {
    private static final System.Logger LOG = System.getLogger(StandbyShares.class.getName());
    private final OperationContext context;

    StandbyShares(OperationContext context) { this.context = context; }

    /** After a bring-up succeeded (create, clone, resume): the start, once it has run that long, if still running. */
    void schedule(SandboxEntry entry) {
        VmRuntime runtime = entry.record().runtime();
        Duration after = context.config().virtiofsdAheadRunning();
        if (runtime == null || after.isZero() || SpeedBaseline.active() || !context.sharesAhead().enabled()) return;
        String id = entry.record().id();
        int epoch = runtime.epoch();
        Thread.ofVirtual().name("standby-shares-" + id).start(() -> {
            try {
                Thread.sleep(after);
            } catch (InterruptedException e) {
                return;
            }
            try (var log = LogContext.with("sandbox", id)) {
                synchronized (entry) { // as a suspend's state change and a resume's RESUMING
                    SandboxRecord now = entry.record();
                    if (now.state() != SandboxState.RUNNING || now.runtime() == null || now.runtime().epoch() != epoch) return;
                    NextEpochShares.start(context, now, context.layout(id), NextEpochShares.Room.ONLY_IF_FREE);
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(WARNING, "starting the next virtiofsd of running sandbox " + id + " ahead failed (its suspend starts them): "
                        + e.getMessage());
            }
        });
    }
}
