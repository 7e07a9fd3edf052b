package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Duration;
import java.util.function.Function;

/**
 * A push of one of a sandbox's snapshots means the sandbox may exist elsewhere from then on: its record says so
 * first (durably: a crash mid-push errs on the safe side), and one that runs here takes its lease first (it may have
 * started without one while the store could not be asked), so no other host adopts the pushed snapshot while it
 * runs here. No sandbox of that id here: nothing to do.
 */
public final class StoreMarking {
    /** How long a push after a suspend waits for an operation holding the sandbox before it fails (and may be retried). */
    private static final Duration PUSH_LOCK_WAIT = Duration.ofSeconds(60);

    private final OperationContext context;
    private final SandboxRegistry sandboxes;
    private final LeaseKeeper leases;

    public StoreMarking(OperationContext context, SandboxRegistry sandboxes, LeaseKeeper leases) {
        this.context = context;
        this.sandboxes = sandboxes;
        this.leases = leases;
    }

    /** Before a push ({@code POST /v1/snapshots/{id}/push}) sends anything; refused when another operation holds the sandbox. */
    public void beforePush(String sandboxId) {
        mark(sandboxId, entry -> entry.acquire("push"));
    }

    /**
     * A push after a suspend ({@code --push-on-suspend}), just before its snapshot becomes visible in the store: only
     * now (a push that never reached the store marks nothing, so a store unreachable since start does not make this
     * host's sandboxes need a lease) and waiting (bounded) for an operation that holds the sandbox, e.g. the resume
     * that followed the suspend, rather than failing the push at once.
     */
    public void beforeVisibleAfterSuspend(String sandboxId) {
        mark(sandboxId, entry -> entry.acquireWithin("push", PUSH_LOCK_WAIT));
    }

    private void mark(String sandboxId, Function<SandboxEntry, SandboxEntry.Lock> lockOf) {
        SandboxEntry entry = sandboxes.find(sandboxId).orElse(null);
        if (entry == null) return;
        try (var lock = lockOf.apply(entry); var log = LogContext.with("sandbox", sandboxId)) {
            if (sandboxes.find(sandboxId).orElse(null) != entry || entry.record().state() == SandboxState.DELETING) return; // deleted meanwhile
            context.transitions().markInStore(entry);
            if (entry.record().state() == SandboxState.RUNNING) leases.holdBeforePush(sandboxId);
        }
    }
}
