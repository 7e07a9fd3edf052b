package dev.ateom.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * SIGKILL to a child and everything it started, returning only once they are gone: the child reaped (its
 * {@link Process#waitFor} returned, which the JVM's reaper thread lets happen after {@code waitpid}), the processes it
 * started gone or zombies. Not {@link Process#onExit()}: that future completes through a stage on the common fork-join
 * pool (one worker on 2 cores), so a blocked worker there, anywhere in the JVM, would hold every kill for its whole
 * timeout. A stop path that only sends the signal returns while its children still live for a moment, and whoever
 * checks next (a leak check, the next start on the same socket or TAP) sees them.
 *
 * <p>An interrupt does not cut the wait short: a SIGKILLed process dies within milliseconds, and a caller that is
 * being interrupted (a pool's refiller at close) is exactly the one that must not leave its child behind. The
 * interrupt is kept for the caller. The wait is bounded all the same ({@code timeout}), for a process stuck in
 * uninterruptible sleep (a hung NFS read, say), which no signal ends.
 */
public final class ProcessKill {
    private ProcessKill() {}

    /**
     * Kills {@code process} and its descendants (read before the signal: once it dies they are reparented and no
     * longer below it) and waits up to {@code timeout} for all of them; false when one still runs after that.
     */
    public static boolean killTree(Process process, Duration timeout) {
        List<ProcessHandle> started = ProcessTree.descendants(process.pid());
        process.destroyForcibly();
        started.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean reaped = awaitUninterruptibly(process, deadline);
        return awaitAllGone(started, deadline) && reaped;
    }

    /** {@link #killTree(Process, Duration)} for a process this JVM did not start (no reaping is ours to wait for). */
    public static boolean killTree(ProcessHandle process, Duration timeout) {
        List<ProcessHandle> all = new ArrayList<>(ProcessTree.descendants(process.pid()));
        all.addFirst(process);
        all.forEach(ProcessHandle::destroyForcibly);
        return awaitAllGone(all, System.nanoTime() + timeout.toNanos());
    }

    private static boolean awaitUninterruptibly(Process process, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static boolean awaitAllGone(List<ProcessHandle> processes, long deadline) {
        boolean interrupted = Thread.interrupted(); // ProcessTree.awaitGone stops at an interrupt; this wait must not
        try {
            boolean allGone = true;
            for (ProcessHandle p : processes) {
                while (ProcessTree.isRunning(p.pid())) {
                    if (System.nanoTime() - deadline > 0) {
                        allGone = false;
                        break;
                    }
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            return allGone;
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
