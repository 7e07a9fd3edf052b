package dev.ateom.microvm.jail;

import dev.ateom.jail.BindMount;
import dev.ateom.jail.JailCommand;
import dev.ateom.process.ChildLauncher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Binds host paths into a running jail's mount namespace with the launcher's {@code --inject} mode: the daemon's JVM
 * is multi-threaded and cannot enter another mount namespace itself.
 */
final class MountInjection {
    /** A fork, an exec of a static binary and a few mount calls: milliseconds, unless the host is stalled. */
    private static final long TIMEOUT_SECONDS = 30;

    private MountInjection() {}

    /** @param pid the jail launcher's pid (its mount namespace is the jail's) */
    static void run(Path launcher, long pid, List<BindMount> binds) {
        List<String> argv = JailCommand.inject(launcher, pid, binds);
        Process injector;
        try {
            injector = ChildLauncher.start(new ProcessBuilder(argv).redirectErrorStream(true), false);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + launcher + " --inject: " + e.getMessage(), e);
        }
        try {
            String output = new String(injector.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!injector.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                injector.destroyForcibly();
                throw new IllegalStateException("binding files into the jail of pid " + pid + " took over " + TIMEOUT_SECONDS + " s");
            }
            if (injector.exitValue() != 0) {
                throw new IllegalStateException("cannot bind files into the jail of pid " + pid + " (exit " + injector.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            injector.destroyForcibly();
            throw new IllegalStateException("cannot read " + launcher + " --inject's output: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            injector.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding files into the jail of pid " + pid, e);
        }
    }
}
