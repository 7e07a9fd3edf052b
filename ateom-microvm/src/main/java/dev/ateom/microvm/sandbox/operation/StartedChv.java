package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.timing.StepTimer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The cloud-hypervisor a bring-up got: ready, or a warm jailed pool member whose hand-over (its sandbox's files bound
 * in, its cgroup given the sandbox's limits) runs beside the bring-up's virtiofsd start. That hand-over is a wake-up of
 * another process, tens of ms on a loaded host, which the bring-up need not wait for until the VM's own calls.
 */
final class StartedChv {
    private static final System.Logger LOG = System.getLogger(StartedChv.class.getName());

    private final ChvProcess chv;
    private final CompletableFuture<?> handOver;
    private final Function<Throwable, ChvProcess> instead;

    private StartedChv(ChvProcess chv, CompletableFuture<?> handOver, Function<Throwable, ChvProcess> instead) {
        this.chv = chv;
        this.handOver = handOver;
        this.instead = instead;
    }

    /** A VMM ready as it is. */
    static StartedChv ready(ChvProcess chv) {
        return new StartedChv(chv, CompletableFuture.completedFuture(null), e -> chv);
    }

    /**
     * A warm member whose hand-over still runs.
     *
     * @param instead when the hand-over failed: discards the member and starts a VMM cold, which it returns
     */
    static StartedChv handingOver(ChvProcess chv, CompletableFuture<?> handOver, Function<Throwable, ChvProcess> instead) {
        return new StartedChv(chv, handOver, instead);
    }

    /** The VMM, once its hand-over is done (a span {@code handOver} in the timings when it had to wait); a failed one is replaced. */
    ChvProcess await(StepTimer timer) {
        if (handOver.isDone() && !handOver.isCompletedExceptionally()) return chv;
        long start = System.nanoTime();
        try {
            handOver.join();
            return chv;
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            LOG.log(System.Logger.Level.WARNING, "cannot hand pooled cloud-hypervisor pid " + chv.pid() + " over: " + cause.getMessage()
                    + "; starting one cold");
            return instead.apply(cause);
        } finally {
            timer.span("handOver", start, System.nanoTime());
        }
    }
}
