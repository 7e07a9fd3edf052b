package dev.ateom.jail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/** The file operations both cgroup versions share: control files, membership, and removal of a populated group. */
final class CgroupFiles {
    private static final System.Logger LOG = System.getLogger(CgroupFiles.class.getName());
    /** SIGKILL takes milliseconds; a task stuck in the kernel (D state) longer is reported, not waited for. */
    private static final long REMOVE_WAIT_MILLIS = 5_000;

    private CgroupFiles() {}

    static void write(Path file, String value) {
        try {
            Files.writeString(file, value, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + value + " to " + file + ": " + e.getMessage(), e);
        }
    }

    static OptionalLong readLong(Path file) {
        try {
            return OptionalLong.of(Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create cgroup " + dir + ": " + e.getMessage(), e);
        }
    }

    static List<Long> pids(Path dir) {
        try (Stream<String> lines = Files.lines(dir.resolve("cgroup.procs"))) {
            return lines.filter(l -> !l.isBlank()).map(l -> Long.parseLong(l.trim())).toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir.resolve("cgroup.procs"), e);
        }
    }

    static List<String> children(Path parent) {
        if (!Files.isDirectory(parent)) return List.of();
        try (Stream<Path> entries = Files.list(parent)) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + parent, e);
        }
    }

    /**
     * SIGKILL to every process in {@code dir}, until none is left or the wait ends, then rmdir; true when the
     * directory is gone. A cgroup with members cannot be removed, so the kill comes first. A removal is clean-up: an
     * interrupt of the caller (a VMM pool's close stopping its refiller while it discards a member) would cut the read of
     * {@code cgroup.procs} short (an interruptible channel) and leave the cgroup behind, so the interrupt is kept for
     * after the removal.
     */
    static boolean killAndRemove(Path dir) {
        boolean interrupted = Thread.interrupted();
        try {
            return killAndRemoveNow(dir);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static boolean killAndRemoveNow(Path dir) {
        if (!Files.isDirectory(dir)) return true;
        long deadline = System.nanoTime() + REMOVE_WAIT_MILLIS * 1_000_000;
        while (true) {
            List<Long> left = pids(dir);
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            try {
                Files.deleteIfExists(dir);
                return true;
            } catch (IOException e) {
                // EBUSY while members (or zombies not reaped yet) remain
                if (System.nanoTime() - deadline > 0) {
                    LOG.log(System.Logger.Level.WARNING, "cgroup " + dir + " still not removable after SIGKILL: " + e.getMessage()
                            + " (members: " + left + ")");
                    return false;
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    static List<Path> under(List<Path> parents, String name) {
        List<Path> dirs = new ArrayList<>();
        parents.forEach(p -> dirs.add(p.resolve(name)));
        return dirs;
    }

    static void checkName(String name) {
        if (name.isEmpty() || name.contains("/") || name.startsWith(".") || name.startsWith("cgroup.")) {
            throw new IllegalArgumentException("not a cgroup name: " + name);
        }
    }
}
