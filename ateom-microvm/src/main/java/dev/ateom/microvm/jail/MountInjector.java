package dev.ateom.microvm.jail;

import dev.ateom.jail.BindMount;
import dev.ateom.jail.JailCommand;
import dev.ateom.process.ChildLauncher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Binds host paths into a running jail's mount namespace with the launcher's {@code --inject} mode, started ahead: the
 * daemon's JVM is multi-threaded and cannot enter another mount namespace itself, and a process start at the claim
 * (one fork and exec from a large JVM, through the launch threads that the claim's virtiofsd starts also use) cost
 * 60-370 ms on the loaded host. Started once the jail is up, it holds the jail's namespace open and waits on its stdin;
 * {@link #inject} hands it the binds and waits for its end. One use.
 */
final class MountInjector implements AutoCloseable {
    /** A few mount calls once started: milliseconds, unless the host is stalled. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final long jailPid;

    private MountInjector(Process process, long jailPid) {
        this.process = process;
        this.jailPid = jailPid;
    }

    /** @param jailPid the jail launcher's pid (its mount namespace is the jail's); its jail must be up */
    static MountInjector startFor(Path launcher, long jailPid) {
        try {
            // dies with the daemon: a root process outside any jail waiting for orders must not outlive it
            return new MountInjector(ChildLauncher.start(new ProcessBuilder(JailCommand.injectLater(launcher, jailPid))
                    .redirectErrorStream(true), true), jailPid);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + launcher + " --inject " + jailPid + ": " + e.getMessage(), e);
        }
    }

    /**
     * Binds {@code binds} into the jail; throws with the launcher's message when any step failed. Done at its "ok" line,
     * not at its exit: seeing a process's exit costs one more wake-up of the JVM's process reaper.
     */
    void inject(List<BindMount> binds) {
        try {
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(JailCommand.injectInput(binds));
            }
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            if ("ok".equals(first)) return;
            StringBuilder output = new StringBuilder(first == null ? "" : first);
            for (String line; (line = out.readLine()) != null; ) output.append(' ').append(line);
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("binding files into the jail of pid " + jailPid + " took over " + TIMEOUT.toSeconds() + " s");
            }
            throw new IllegalStateException("cannot bind files into the jail of pid " + jailPid + " (exit " + process.exitValue() + "): " + output);
        } catch (IOException e) {
            throw new IllegalStateException("cannot hand binds to the injector of pid " + jailPid + " (" + e.getMessage() + "): it is gone", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding files into the jail of pid " + jailPid, e);
        } finally {
            close();
        }
    }

    /**
     * Kills it if it still waits (its member discarded); the JVM's process reaper reaps it. After an "ok" it is exiting
     * by itself: a SIGKILL then changes nothing.
     */
    @Override
    public void close() {
        if (process.isAlive()) process.destroyForcibly();
    }
}
