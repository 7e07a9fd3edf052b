package dev.ateom.microvm.systeminfo.sync;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One inotify instance for the whole daemon (the JDK's Linux WatchService), shared by every
 * sandbox's sync: inotify instances are limited per user (128 by default), watches are not.
 * Each {@link Handle} watches a set of directories and is told "something changed" — the sync
 * re-reads its source, so which file changed does not matter. A directory that is deleted or
 * replaced also notifies (its watch is gone; the handle re-watches once it is back).
 *
 * <p>Its thread runs from {@link #start} to {@link #close}; both may be called more than once, from any thread
 * (a state moved by compare-and-set, as ZooKeeper's FileChangeWatcher does).
 */
public final class SourceWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SourceWatcher.class.getName());

    private enum State { NEW, RUNNING, STOPPED }

    private final WatchService service;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private volatile Thread thread;
    private final Map<WatchKey, Set<Handle>> handlesByKey = new HashMap<>();

    /** A watcher that registers watches at once and delivers events once {@link #start started}. */
    public SourceWatcher() throws IOException {
        this.service = FileSystems.getDefault().newWatchService();
    }

    /** Starts delivering events on the watcher's thread; a second call, or one after {@link #close}, does nothing. */
    public void start() {
        if (state.compareAndSet(State.NEW, State.RUNNING)) {
            thread = Thread.ofPlatform().daemon().name("ateom-systeminfo-watcher").start(this::run);
        }
    }

    /** A new handle that calls {@code onChange} (on the watcher's thread; keep it short) after changes. */
    public Handle newHandle(Runnable onChange) {
        return new Handle(onChange);
    }

    /** Directories watched right now, over all handles (diagnostics: each is one inotify watch). */
    public synchronized int watchCount() {
        return handlesByKey.size();
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = service.take();
                key.pollEvents();
                boolean valid = key.reset();
                List<Handle> toNotify;
                synchronized (this) {
                    Set<Handle> handles = handlesByKey.getOrDefault(key, Set.of());
                    toNotify = List.copyOf(handles);
                    if (!valid) {
                        handlesByKey.remove(key);
                        handles.forEach(h -> h.keys.remove(key));
                    }
                }
                for (Handle handle : toNotify) {
                    handle.onChange.run();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "system-info watcher stopped: " + e, e);
        }
    }

    /** Stops the thread and drops every watch; idempotent. */
    @Override
    public void close() throws IOException {
        State before = state.getAndSet(State.STOPPED);
        if (before == State.STOPPED) return;
        service.close();
        Thread running = thread;
        if (running == null) return;
        try {
            running.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The watches of one consumer; {@link #watch} replaces the set, {@link #close} drops it. */
    public final class Handle implements AutoCloseable {
        private final Runnable onChange;
        private final Map<Path, WatchKey> keysByDir = new HashMap<>();
        private final Set<WatchKey> keys = new HashSet<>();

        private Handle(Runnable onChange) {
            this.onChange = onChange;
        }

        /**
         * Watches exactly {@code dirs} from now on. A directory that is missing right now is
         * skipped and returned; the caller retries it later (a returning source is found then).
         */
        public Set<Path> watch(Set<Path> dirs) {
            Set<Path> missing = new HashSet<>();
            synchronized (SourceWatcher.this) {
                for (Path dir : Set.copyOf(keysByDir.keySet())) {
                    WatchKey key = keysByDir.get(dir);
                    if (!dirs.contains(dir) || !keys.contains(key)) {
                        drop(dir);
                    }
                }
                for (Path dir : dirs) {
                    if (keysByDir.containsKey(dir)) {
                        continue;
                    }
                    try {
                        WatchKey key = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                                StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
                        keysByDir.put(dir, key);
                        keys.add(key);
                        handlesByKey.computeIfAbsent(key, k -> new HashSet<>()).add(this);
                    } catch (IOException | ClosedWatchServiceException e) {
                        missing.add(dir); // gone, not a directory, or the daemon is shutting down
                    }
                }
            }
            return missing;
        }

        private void drop(Path dir) {
            WatchKey key = keysByDir.remove(dir);
            keys.remove(key);
            Set<Handle> handles = handlesByKey.get(key);
            if (handles != null) {
                handles.remove(this);
                if (handles.isEmpty()) {
                    handlesByKey.remove(key);
                    key.cancel();
                }
            }
        }

        @Override
        public void close() {
            synchronized (SourceWatcher.this) {
                for (Path dir : Set.copyOf(keysByDir.keySet())) {
                    drop(dir);
                }
            }
        }
    }
}
