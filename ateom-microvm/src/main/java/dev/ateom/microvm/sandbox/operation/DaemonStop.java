package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.logging.LogContext;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * What a clean daemon stop does to the sandboxes: when their VMs die with the daemon, every RUNNING one is
 * suspended first (in parallel, bounded), so that its memory and data survive the stop; then, once every suspend's
 * processes are stopped, every sync stops.
 */
public final class DaemonStop {
    private static final System.Logger LOG = System.getLogger(DaemonStop.class.getName());
    /** How long a clean daemon stop waits for the running sandboxes' suspends (systemd's default stop timeout is 90 s). */
    private static final Duration SUSPEND_LIMIT = Duration.ofSeconds(60);

    private DaemonStop() {}

    /** @param suspend the manager's suspend, taking each sandbox's lock as any request would */
    public static void run(Collection<SandboxEntry> entries, boolean childrenDieWithDaemon, Consumer<String> suspend) {
        if (childrenDieWithDaemon) suspendAllRunning(entries, suspend);
        // suspends answer before their processes stop: the daemon stops only once they have
        entries.forEach(SandboxEntry::awaitTeardown);
        for (SandboxEntry entry : entries) {
            LiveVm live = entry.live();
            if (live != null) Teardown.closeQuietly(live.sync(), "system-info sync of " + entry.record().id());
        }
    }

    /** Suspends every RUNNING sandbox in parallel, waiting at most {@link #SUSPEND_LIMIT}; failures are logged, not thrown. */
    private static void suspendAllRunning(Collection<SandboxEntry> entries, Consumer<String> suspend) {
        List<String> running = entries.stream().map(SandboxEntry::record)
                .filter(r -> r.state() == SandboxState.RUNNING).map(r -> r.id()).toList();
        if (running.isEmpty()) return;
        LOG.log(INFO, "daemon stopping: suspending " + running.size() + " running sandbox(es) " + running);
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> suspends = new ArrayList<>();
            for (String id : running) {
                suspends.add(executor.submit(() -> {
                    try (var log = LogContext.with("sandbox", id)) {
                        suspend.accept(id);
                    } catch (RuntimeException e) {
                        LOG.log(WARNING, "suspend of " + id + " at daemon stop failed: " + Transitions.describe(e));
                    }
                }));
            }
            awaitAll(suspends, executor);
        }
    }

    private static void awaitAll(List<Future<?>> suspends, ExecutorService executor) {
        long deadline = System.nanoTime() + SUSPEND_LIMIT.toNanos();
        for (Future<?> suspend : suspends) {
            try {
                suspend.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LOG.log(WARNING, "suspending at daemon stop takes longer than " + SUSPEND_LIMIT + "; stopping anyway");
                executor.shutdownNow();
                return;
            } catch (ExecutionException e) {
                LOG.log(WARNING, "suspend at daemon stop failed: " + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
