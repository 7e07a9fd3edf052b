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
        addChildren(pid, found, true);
        return found;
    }

    /** The processes {@code pid} started itself, not theirs: each of its threads' {@code children} file. */
    public static List<ProcessHandle> children(long pid) {
        List<ProcessHandle> found = new ArrayList<>();
        addChildren(pid, found, false);
        return found;
    }

    private static void addChildren(long pid, List<ProcessHandle> found, boolean andTheirs) {
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
                    if (andTheirs) addChildren(childPid, found, true);
                }
            }
        } catch (IOException e) {
            // the process is gone: it has no children left either (they were reparented)
        }
    }

    /**
     * Whether {@code pid} still runs: {@code /proc/<pid>/stat} shows it and it is not a zombie, or it is a zombie whose
     * other threads have not all exited yet. A multi-threaded process's leader shows {@code Z} as soon as its own thread
     * has exited, while the others (killed too, but still on their way out) keep the descriptors they share open: a
     * killed virtiofsd's listening socket stayed in the kernel's table with an empty {@code /proc/<pid>/fd}, and the next
     * virtiofsd on that path was refused. Only once no thread but the leader is listed is the process really gone.
     */
    public static boolean isRunning(long pid) {
        Path dir = Path.of("/proc", Long.toString(pid));
        try {
            String stat = Files.readString(dir.resolve("stat"));
            // the state follows the command name, which is in parentheses and may itself contain them
            int afterName = stat.lastIndexOf(')');
            if (afterName < 0 || afterName + 2 >= stat.length()) return true;
            char state = stat.charAt(afterName + 2);
            return (state != 'Z' && state != 'X') || hasThreadsBesidesLeader(dir, pid);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean hasThreadsBesidesLeader(Path dir, long pid) {
        String leader = Long.toString(pid);
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(dir.resolve("task"))) {
            for (Path task : tasks) {
                if (!task.getFileName().toString().equals(leader)) return true;
            }
        } catch (IOException e) {
            // reaped meanwhile
        }
        return false;
    }

    /** Waits until {@code pid} is gone or a zombie with no thread left ({@link #isRunning}); false when it still runs after {@code timeout}. */
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
