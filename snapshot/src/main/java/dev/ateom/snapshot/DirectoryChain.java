package dev.ateom.snapshot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The directories from a root down to the current one, as descriptors, for walks that must not be
 * limited by PATH_MAX. At most {@link #OPEN_WINDOW} of them stay open, so any depth works within the
 * descriptor limit: going back up past a closed one reopens it with {@code openat(child, "..")} and
 * checks that it is the same directory. Each level carries a state object of the walk's choosing.
 *
 * @param <S> what the walk keeps per level
 */
final class DirectoryChain<S> implements AutoCloseable {
    static final int OPEN_WINDOW = 64;

    /** Runs on a level's descriptor just before it is closed (e.g. to set the directory's mtime). */
    @FunctionalInterface
    interface Leaving<S> {
        void leave(int fd, S state) throws IOException;
    }

    private static final class Level<S> {
        final byte[] name;
        final FileStatus status;
        final S state;
        int fd;

        Level(byte[] name, int fd, FileStatus status, S state) {
            this.name = name;
            this.fd = fd;
            this.status = status;
            this.state = state;
        }
    }

    private final List<Level<S>> levels = new ArrayList<>();
    /** levels[1 .. firstOpen) have their descriptor closed; the root (0) and the rest are open. */
    private int firstOpen = 1;

    /** Takes ownership of {@code rootFd}. */
    DirectoryChain(int rootFd, S rootState) throws IOException {
        FileStatus status;
        try {
            status = At.stat(rootFd);
        } catch (IOException e) {
            At.close(rootFd);
            throw e;
        }
        levels.add(new Level<>(new byte[0], rootFd, status, rootState));
    }

    /** 0 at the root. */
    int depth() {
        return levels.size() - 1;
    }

    int fd() {
        return levels.getLast().fd;
    }

    int rootFd() {
        return levels.getFirst().fd;
    }

    S state() {
        return levels.getLast().state;
    }

    byte[] name(int depth) {
        return levels.get(depth).name;
    }

    S state(int depth) {
        return levels.get(depth).state;
    }

    /** Enters the directory open at {@code fd} (owned by the chain from now on), named {@code name} in the current one. */
    void push(byte[] name, int fd, S state) throws IOException {
        FileStatus status;
        try {
            status = At.stat(fd);
        } catch (IOException e) {
            At.close(fd);
            throw e;
        }
        levels.add(new Level<>(name, fd, status, state));
        if (levels.size() - firstOpen >= OPEN_WINDOW) {
            Level<S> oldest = levels.get(firstOpen);
            At.close(oldest.fd);
            oldest.fd = -1;
            firstOpen++;
        }
    }

    /** Leaves the current directory (never the root). */
    void pop(Leaving<S> leaving) throws IOException {
        Level<S> top = levels.getLast();
        try {
            int parentIndex = levels.size() - 2;
            Level<S> parent = levels.get(parentIndex);
            if (parent.fd < 0) {
                int fd = At.openParent(top.fd);
                FileStatus status = At.stat(fd);
                if (!status.sameFile(parent.status)) {
                    At.close(fd);
                    throw new IOException("directory '" + ByteNames.display(parent.name) + "' was moved during the walk");
                }
                parent.fd = fd;
                firstOpen = parentIndex;
            }
            leaving.leave(top.fd, top.state);
        } finally {
            At.close(top.fd);
            levels.removeLast();
            if (firstOpen > levels.size()) {
                firstOpen = levels.size();
            }
        }
    }

    /** Closes every open descriptor, the root's too; no {@link Leaving} runs. */
    @Override
    public void close() {
        for (Level<S> level : levels) {
            if (level.fd >= 0) {
                At.close(level.fd);
                level.fd = -1;
            }
        }
        levels.clear();
    }
}
