package dev.ateom.e2e;

import dev.ateom.fixtures.wait.Eventually;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Live processes found in /proc by their command line: how a test sees what a killed daemon left running. */
final class HostProcesses {
    /** Processes that were told to stop (SIGTERM, then SIGKILL after a grace) are gone well within this. */
    private static final Duration WAIT = Duration.ofSeconds(15);

    private HostProcesses() {}

    record Found(long pid, long parentPid, String commandLine) {}

    /** Every live process (zombies have no command line) whose argv mentions {@code text}, except this JVM. */
    static List<Found> mentioning(String text) {
        List<Found> found = new ArrayList<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path dir : proc) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == ProcessHandle.current().pid()) continue;
                String cmdline = commandLine(dir);
                if (cmdline.contains(text)) found.add(new Found(pid, parentPid(dir), cmdline));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }

    /**
     * Waits until nothing that mentions {@code text} runs but {@code except} and their descendants (virtiofsd's
     * namespace sandbox runs as a parent and a child; a daemon's jailed pool member is its jail launcher's child);
     * fails naming {@code what} and the processes still found.
     */
    static void awaitOnly(String text, List<Long> except, String what) {
        Eventually.until(WAIT, () -> others(text, except).isEmpty(), what, () -> String.join("\n",
                others(text, except).stream().map(Found::toString).toList()));
    }

    /** The processes mentioning {@code text} other than {@code except} and their descendants. */
    static List<Found> others(String text, List<Long> except) {
        return mentioning(text).stream().filter(f -> !except.contains(f.pid()) && !descendsFrom(f.parentPid(), except)).toList();
    }

    /** Whether {@code pid} is one of {@code ancestors} or below one of them (its parents followed up to pid 1). */
    private static boolean descendsFrom(long pid, List<Long> ancestors) {
        for (int depth = 0; pid > 1 && depth < 64; depth++) {
            if (ancestors.contains(pid)) return true;
            pid = parentPid(Path.of("/proc", Long.toString(pid)));
        }
        return false;
    }

    /** Running and not a zombie ({@link ProcessHandle#isAlive} counts an unreaped zombie as alive). */
    static boolean isRunning(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    private static long parentPid(Path procDir) {
        try {
            String stat = Files.readString(procDir.resolve("stat"));
            return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
        } catch (IOException e) {
            return -1;
        }
    }

    private static String commandLine(Path procDir) {
        try {
            return new String(Files.readAllBytes(procDir.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ').strip();
        } catch (IOException e) {
            return ""; // exited meanwhile, or not ours to read
        }
    }
}
