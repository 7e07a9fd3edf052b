package dev.ateom.network.os;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An open network namespace: a descriptor of its nsfs file, and a way to run code inside it.
 *
 * <p>{@link #call} runs the code on a fresh platform thread that enters the namespace with {@code setns} and
 * ends with the call. The namespace of a thread is what sockets, netlink, {@code /dev/net/tun} and
 * {@code /proc/sys/net} see; entering it on a short-lived thread of its own means no pooled thread (and no
 * virtual thread's carrier) is ever left in a foreign namespace.
 */
public final class NetNamespace implements AutoCloseable {
    private static final Duration CALL_LIMIT = Duration.ofSeconds(60);

    private final String description;
    private final int fd;
    private volatile boolean closed;

    private NetNamespace(String description, int fd) {
        this.description = description;
        this.fd = fd;
    }

    /** The namespace of the calling thread (the daemon's own when called from a thread that never moved). */
    public static NetNamespace ofCurrentThread() throws IOException {
        return open(Path.of("/proc/thread-self/ns/net"), "the daemon's network namespace");
    }

    /** A named namespace ({@code /run/netns/<name>}, as {@code ip netns} names them). */
    public static NetNamespace named(String name) throws IOException {
        return open(NetNamespaces.pathOf(name), "network namespace " + name);
    }

    private static NetNamespace open(Path path, String description) throws IOException {
        try {
            return new NetNamespace(description, LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0));
        } catch (LastErrorException e) {
            throw new IOException("cannot open " + description + " (" + path + "): " + LibC.errnoName(e.getErrorCode()), e);
        }
    }

    public String description() {
        return description;
    }

    /** The nsfs descriptor (for {@code IFLA_NET_NS_FD}); owned by this object. */
    public int fd() {
        return fd;
    }

    /** Runs {@code work} inside this namespace and returns its result; its exceptions are rethrown here. */
    public <T> T call(NamespaceCall<T> work) throws IOException {
        if (closed) {
            throw new IOException(description + " is closed");
        }
        var result = new AtomicReference<T>();
        var failure = new AtomicReference<Throwable>();
        Thread thread = Thread.ofPlatform().name("netns " + description).daemon().start(() -> {
            try {
                LibC.setns(fd, LibC.CLONE_NEWNET);
                result.set(work.call());
            } catch (LastErrorException e) {
                failure.set(new IOException("setns into " + description + ": " + LibC.errnoName(e.getErrorCode()), e));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        try {
            if (!thread.join(CALL_LIMIT)) {
                thread.interrupt();
                throw new IOException("work in " + description + " did not finish within " + CALL_LIMIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for work in " + description);
        }
        Throwable thrown = failure.get();
        switch (thrown) {
            case null -> {
                return result.get();
            }
            case IOException io -> throw io;
            case RuntimeException runtime -> throw runtime;
            case Error error -> throw error;
            default -> throw new IOException(thrown);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LibC.closeQuietly(fd);
    }

    @Override
    public String toString() {
        return description;
    }
}
