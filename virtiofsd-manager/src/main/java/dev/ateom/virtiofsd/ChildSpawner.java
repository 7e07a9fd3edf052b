package dev.ateom.virtiofsd;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Starts child processes, optionally with a parent-death signal.
 *
 * <p>Java cannot run code between fork and exec, so the signal is set by {@code setpriv --pdeathsig SIGKILL}
 * (util-linux, in every Debian base system), which calls {@code prctl(PR_SET_PDEATHSIG)} and execs the real
 * program under the same pid. The kernel sends that signal when the <em>thread</em> that forked the child ends,
 * not the process: spawning from a pool or virtual-thread carrier that later retires would kill the child.
 * So every spawn runs on one platform thread that lives as long as the JVM.
 */
final class ChildSpawner {

    static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    private static final ExecutorService SPAWN_THREAD = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "ateom-child-spawner");
        thread.setDaemon(true);
        return thread;
    });

    private ChildSpawner() {}

    /** The argv actually executed: the program's argv, behind setpriv when it must die with this JVM. */
    static List<String> command(List<String> argv, boolean dieWithParent) {
        if (!dieWithParent) return argv;
        if (!Files.isExecutable(SETPRIV)) {
            throw new VirtiofsdException("cannot make " + argv.getFirst() + " die with the daemon: " + SETPRIV
                    + " (util-linux) is missing");
        }
        List<String> wrapped = new ArrayList<>(List.of(SETPRIV.toString(), "--pdeathsig", "SIGKILL", "--"));
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Starts the program with stdin from /dev/null and stdout+stderr appended to the log file. */
    static Process spawn(List<String> argv, boolean dieWithParent, Path logFile) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command(argv, dieWithParent))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectErrorStream(true);
        CompletableFuture<Process> started = CompletableFuture.supplyAsync(() -> {
            try {
                return builder.start();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, SPAWN_THREAD);
        try {
            return started.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof java.io.UncheckedIOException io) throw io.getCause();
            throw new VirtiofsdException("cannot start " + argv.getFirst() + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            // the spawn still completes on the spawn thread; the caller learns nothing of it, so kill it
            started.thenAccept(Process::destroyForcibly);
            Thread.currentThread().interrupt();
            throw new VirtiofsdException("interrupted while starting " + argv.getFirst(), e);
        }
    }
}
