package dev.ateom.process;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes a child started, and whether a killed one is gone, read from {@code /proc} for that process alone.
 * {@link ProcessHandle#descendants()} scans every process on the host instead, which took 3-40 ms on a loaded
 * 2-core host: too much for a teardown that should end in milliseconds.
 */
public final class ProcessTree {
    private ProcessTree() {}

    /** Every process below {@code pid}: each thread's {@code children} file, then theirs in turn. */
    public static List<ProcessHandle> descendants(long pid) {
        List<ProcessHandle> found = new ArrayList<>();
        addChildren(pid, found);
        return found;
    }

    private static void addChildren(long pid, List<ProcessHandle> found) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String children;
                try {
                    children = Files.readString(task.resolve("children")).strip();
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (children.isEmpty()) continue;
                for (String child : children.split("\\s+")) {
                    long childPid = Long.parseLong(child);
                    var handle = ProcessHandle.of(childPid);
                    if (handle.isEmpty()) continue;
                    found.add(handle.get());
                    addChildren(childPid, found);
                }
            }
        } catch (IOException e) {
            // the process is gone: it has no children left either (they were reparented)
        }
    }

    /** Whether {@code /proc/<pid>/stat} still shows a process that is not a zombie (a zombie holds no descriptors). */
    public static boolean isRunning(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the state follows the command name, which is in parentheses and may itself contain them
            int afterName = stat.lastIndexOf(')');
            return afterName < 0 || afterName + 2 >= stat.length() || stat.charAt(afterName + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until {@code pid} is gone or a zombie; false when it still runs after {@code timeout}. */
    public static boolean awaitGone(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isRunning(pid)) {
            if (System.nanoTime() - deadline > 0) return false;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !isRunning(pid);
            }
        }
        return true;
    }
}
