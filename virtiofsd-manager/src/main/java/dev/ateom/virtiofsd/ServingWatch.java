package dev.ateom.virtiofsd;

import dev.ateom.process.ProcessTree;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Watches a virtiofsd that listens until it serves, off its starter's path ({@link VirtiofsdProcess#serving()}).
 *
 * <p>virtiofsd listens first, then sets itself up: with the namespace sandbox it forks a short-lived helper and then
 * the child that serves, which mounts the shared dir as its root and enters its seccomp filter. A VMM may connect
 * from the listen on: its connection waits in the socket's backlog until the child accepts it. So the start returns at
 * the listen and this watch confirms the rest on a virtual thread: it records the tree it finds serving (its kill and
 * its exit need it, and a jail moves it), and it kills a process that has not served within the ready timeout, so
 * that a VMM whose connection waits for it fails instead of hanging.
 *
 * <p>Caveat: a set-up that fails after the listen is not the start's failure any more but an exit of the process
 * (crash detection), found by whatever connects to it; a bring-up explains the VMM's error with
 * {@link VirtiofsdProcess#failure()}.
 */
final class ServingWatch {

    private static final System.Logger LOG = System.getLogger(ServingWatch.class.getName());
    /** Off the path, so coarser than the start's 1 ms listen poll: a set-up takes a few ms when the host is idle. */
    private static final Duration POLL = Duration.ofMillis(3);

    private ServingWatch() {}

    static void start(VirtiofsdProcess process, Duration timeout) {
        Thread.ofVirtual().name("ateom-virtiofsd-serving-" + process.pid()).start(() -> watch(process, timeout));
    }

    private static void watch(VirtiofsdProcess process, Duration timeout) {
        ShareSpec spec = process.spec();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (process.exitedAlready() || !process.handle().isAlive()) {
                settleExited(process);
                return;
            }
            if (serves(process)) {
                process.served();
                return;
            }
            if (System.nanoTime() > deadline) {
                VirtiofsdException why = new VirtiofsdException(spec.describe() + ": virtiofsd pid " + process.pid()
                        + " listened on " + spec.socketPath() + " but did not serve within " + timeout.toMillis()
                        + " ms; log " + spec.logFile() + " ends with: " + String.join(" | ", process.logTail()));
                LOG.log(Level.WARNING, why.getMessage() + "; killing it");
                process.notServing(why);
                try {
                    process.kill();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, e.getMessage());
                }
                return;
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * It exited before a poll saw it serve. One whose frontend disconnected did serve (it accepted a VMM and ran until
     * the VMM left, all between two polls: a loaded host), so it is no failure to serve; any other exit is.
     */
    private static void settleExited(VirtiofsdProcess process) {
        ShareSpec spec = process.spec();
        CompletableFuture<VirtiofsdExit> exited = process.onExit();
        VirtiofsdExit exit = exited.exceptionally(failed -> null).join();
        if (exit != null && exit.reason() == VirtiofsdExit.Reason.FRONTEND_DISCONNECTED) {
            process.served();
            return;
        }
        process.notServing(new VirtiofsdException(spec.describe() + ": virtiofsd pid " + process.pid()
                + " exited after listening on " + spec.socketPath() + " and before serving: "
                + (exit != null ? exit.describe() + "; log " + spec.logFile() + " ends with: " + String.join(" | ", exit.logTail())
                        : "its exit could not be handled: " + exited.exceptionNow().getMessage())));
    }

    /** Whether a process of its tree has entered its seccomp filter; if so the tree and its sockets are remembered. */
    private static boolean serves(VirtiofsdProcess process) {
        List<ProcessHandle> tree = new ArrayList<>(ProcessTree.descendants(process.pid()));
        tree.addFirst(process.handle());
        if (tree.stream().noneMatch(member -> LinuxProcess.underSeccompFilter(member.pid()))) return false;
        process.remember(tree.subList(1, tree.size()), VirtiofsdProcess.socketInodesOf(tree));
        return true;
    }
}
