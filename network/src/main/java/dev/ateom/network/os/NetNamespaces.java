package dev.ateom.network.os;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Named network namespaces, kept alive by a bind mount at {@code /run/netns/<name>} exactly as {@code ip netns add}
 * does, so {@code ip netns list/exec/del} work on them and they outlive the daemon (a VM kept running across a
 * daemon restart keeps its network).
 */
public final class NetNamespaces {
    private static final Path RUN_NETNS = Path.of("/run/netns");
    private static final Object PREPARE_LOCK = new Object();
    private static boolean prepared;

    private NetNamespaces() {
    }

    static Path pathOf(String name) {
        if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a namespace name: '" + name + "'");
        }
        return RUN_NETNS.resolve(name);
    }

    /** Creates the namespace {@code name}; fails if it exists. Leaves nothing behind on failure. */
    public static void create(String name) throws IOException {
        Path path = pathOf(name);
        prepareRunDirectory();
        try {
            LibC.close(LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CREAT | LibC.O_EXCL | LibC.O_CLOEXEC, 0));
        } catch (LastErrorException e) {
            throw new IOException("cannot create " + path + ": " + LibC.errnoName(e.getErrorCode()), e);
        }
        var failure = new AtomicReference<IOException>();
        // unshare moves only this thread into the new namespace; the thread ends right after the bind mount
        Thread thread = Thread.ofPlatform().name("netns create " + name).daemon().start(() -> {
            try {
                LibC.unshare(LibC.CLONE_NEWNET);
                LibC.mount("/proc/thread-self/ns/net", path.toString(), "none", LibC.MS_BIND, null);
            } catch (LastErrorException e) {
                failure.set(new IOException("cannot create network namespace " + name + ": " + LibC.errnoName(e.getErrorCode()), e));
            }
        });
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.compareAndSet(null, new IOException("interrupted while creating network namespace " + name));
            try {
                thread.join();
            } catch (InterruptedException again) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure.get() != null) {
            deleteQuietly(name);
            throw failure.get();
        }
    }

    /** Removes the name; the namespace itself goes once nothing else (a process, an open TAP) holds it. */
    public static void delete(String name) throws IOException {
        Path path = pathOf(name);
        try {
            LibC.umount2(path.toString(), LibC.MNT_DETACH);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != LibC.EINVAL && e.getErrorCode() != LibC.ENOENT) {
                throw new IOException("cannot unmount " + path + ": " + LibC.errnoName(e.getErrorCode()), e);
            }
        }
        Files.deleteIfExists(path);
    }

    private static void deleteQuietly(String name) {
        try {
            delete(name);
        } catch (IOException ignored) {
            // the caller reports the original failure
        }
    }

    public static boolean exists(String name) {
        return Files.exists(pathOf(name));
    }

    /** Names under {@code /run/netns} starting with {@code prefix}, sorted. */
    public static List<String> list(String prefix) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(RUN_NETNS)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(prefix)) {
                    names.add(name);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }

    /**
     * Makes {@code /run/netns} a shared mount point, as iproute2 does, so that a namespace unmounted here is
     * unmounted in every mount namespace that saw it (and can be freed).
     */
    private static void prepareRunDirectory() throws IOException {
        synchronized (PREPARE_LOCK) {
            if (prepared) {
                return;
            }
            Files.createDirectories(RUN_NETNS);
            boolean madeMountPoint = false;
            while (true) {
                try {
                    LibC.mount("", RUN_NETNS.toString(), "none", LibC.MS_SHARED | LibC.MS_REC, null);
                    break;
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != LibC.EINVAL || madeMountPoint) {
                        throw new IOException("cannot make " + RUN_NETNS + " a shared mount: " + LibC.errnoName(e.getErrorCode()), e);
                    }
                }
                try {
                    LibC.mount(RUN_NETNS.toString(), RUN_NETNS.toString(), "none", LibC.MS_BIND | LibC.MS_REC, null);
                    madeMountPoint = true;
                } catch (LastErrorException e) {
                    throw new IOException("cannot bind-mount " + RUN_NETNS + " onto itself: " + LibC.errnoName(e.getErrorCode()), e);
                }
            }
            prepared = true;
        }
    }
}
