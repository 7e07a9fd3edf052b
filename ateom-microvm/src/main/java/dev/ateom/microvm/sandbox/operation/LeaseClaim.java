package dev.ateom.microvm.sandbox.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The lease a create, clone or resume is taking in the background while it prepares its VM; the bring-up awaits it
 * just before the VM is created, so the store's answer costs nothing unless it comes later than the processes are
 * up, and no VM runs without its lease. {@link #NONE}: leases are not held while running, nothing to await.
 */
public final class LeaseClaim {
    public static final LeaseClaim NONE = new LeaseClaim(null);

    private final CompletableFuture<Void> taking;

    private LeaseClaim(CompletableFuture<Void> taking) { this.taking = taking; }

    /** A claim that is taken when {@code taking} completes, refused when it fails. */
    public static LeaseClaim of(CompletableFuture<Void> taking) { return new LeaseClaim(taking); }

    /** Whether there is a lease to await (leases are held while running). */
    public boolean enforced() { return taking != null; }

    /** Waits for the lease; throws the refusal (another host holds it, the store cannot be asked). */
    void await() {
        if (taking == null) return;
        try {
            taking.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException refusal) throw refusal;
            throw e;
        }
    }
}
