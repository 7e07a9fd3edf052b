package dev.ateom.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one owner of the daemon's children (CHV and virtiofsd): starts them, and binds those that must die with
 * the daemon to it. One policy: a child asked to die with the daemon is started that way or not at all.
 *
 * <p>Java cannot run code between fork and exec, so the signal is set by a wrapper the child runs first
 * ({@link ParentDeathWrapper}: the static {@code ateom-die-with-parent}, else util-linux's {@code setpriv}), which
 * calls {@code prctl(PR_SET_PDEATHSIG)} and execs the real program under the same pid. The kernel sends that signal
 * when the <em>thread</em> that forked the child ends,
 * not the process: spawning from a pool or virtual-thread carrier that later retires would kill the child. So
 * every start runs on one of {@value #LAUNCH_THREADS} platform threads that live as long as the JVM (a fixed pool:
 * its threads never time out, and a start's failure is its future's, never the thread's); their end, with the JVM's,
 * is what kills the children (a clean stop first suspends the sandboxes, then exits).
 *
 * <p>Why several: a spawn ({@code ProcessBuilder.start}, through the JDK's spawn helper until the program's exec)
 * takes 1.5-7.5 ms on a loaded 2-core host, and a bring-up starts three virtiofsd at once while the warm pool may be
 * starting a VMM; on one thread the third share waited for the other spawns (docs/decisions.md, issue 27). One
 * start that hangs (an output redirected to a FIFO nobody opens, a hung mount) holds up only its own thread.
 *
 * <p>A jailed CHV is started with {@code dieWithDaemon} false: its jail launcher ({@code ateom-jail
 * --die-with-parent}) sets the signal itself, after the uid change that would clear a wrapper's. It is still started
 * from a launch thread, for the same reason.
 */
public final class ChildLauncher {
    /** Looked for once: the helper is built before anything starts a child, and does not move. */
    private static final Optional<ParentDeathWrapper> PARENT_DEATH = ParentDeathWrapper.find();

    /** The three shares of a bring-up and a warm-pool VMM at once. */
    static final int LAUNCH_THREADS = 4;

    private static final AtomicInteger THREAD_SERIAL = new AtomicInteger();

    private static final ExecutorService LAUNCHERS = Executors.newFixedThreadPool(LAUNCH_THREADS, task -> {
        Thread thread = new Thread(task, "ateom-child-launcher-" + THREAD_SERIAL.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    /** How long a killed child gets to be gone; SIGKILL takes milliseconds unless the process is stuck in the kernel. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private ChildLauncher() {}

    /**
     * The argv actually executed: the program's argv, behind the parent-death wrapper when it must die with this JVM.
     *
     * @throws ParentDeathSignalUnavailableException when it must and no wrapper is there
     */
    public static List<String> command(List<String> argv, boolean dieWithDaemon) {
        return command(argv, dieWithDaemon, PARENT_DEATH);
    }

    static List<String> command(List<String> argv, boolean dieWithDaemon, Optional<ParentDeathWrapper> wrapper) {
        if (!dieWithDaemon) return List.copyOf(argv);
        return wrapper.orElseThrow(() -> new ParentDeathSignalUnavailableException(argv.getFirst())).wrap(argv);
    }

    /**
     * Starts {@code builder}'s command (redirections and environment as set on it) from a launch thread,
     * behind the parent-death wrapper when it must die with this JVM.
     *
     * @throws IOException the program could not be executed
     * @throws ParentDeathSignalUnavailableException it must die with the daemon and cannot
     */
    public static Process start(ProcessBuilder builder, boolean dieWithDaemon) throws IOException {
        List<String> argv = builder.command();
        builder.command(command(argv, dieWithDaemon));
        CompletableFuture<Process> started = CompletableFuture.supplyAsync(() -> {
            try {
                return builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, LAUNCHERS);
        try {
            return started.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UncheckedIOException io) throw io.getCause();
            throw new IOException("cannot start " + argv.getFirst() + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            // the start still completes on its launch thread (a fork and exec: milliseconds) and the caller learns
            // nothing of it, so it is waited for and killed here; returning before it is gone would leave it behind
            // whoever is interrupting us (a pool closing checks that nothing it started lives on)
            killWhenStarted(started);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + argv.getFirst(), e);
        }
    }

    private static void killWhenStarted(CompletableFuture<Process> started) {
        boolean interrupted = false;
        while (true) {
            try {
                ProcessKill.killTree(started.get(), KILL_WAIT);
                break;
            } catch (InterruptedException again) {
                interrupted = true;
            } catch (ExecutionException failed) {
                break; // it never started
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
