package dev.ateom.microvm.events;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The daemon's events: numbered in order, the last {@code ringSize} kept for clients that reconnect with the id
 * they saw last, and handed to every subscriber. Publishing never waits for a subscriber: each has a bounded
 * queue, and one that falls {@code queueSize} events behind is cut off (it reconnects with {@code since}).
 */
public final class EventLog implements AutoCloseable {
    public static final int DEFAULT_RING_SIZE = 4096;
    public static final int DEFAULT_QUEUE_SIZE = 1024;

    private final int ringSize;
    private final int queueSize;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<SandboxEvent> ring = new ArrayDeque<>();
    private final List<EventSubscription> subscribers = new CopyOnWriteArrayList<>();
    private long nextId = 1;
    private boolean closed;

    public EventLog(int ringSize, int queueSize) {
        this.ringSize = ringSize;
        this.queueSize = queueSize;
    }

    /** Numbers the event, keeps it in the ring and offers it to every subscriber; never blocks on one. */
    public SandboxEvent publish(SandboxEvent draft) {
        lock.lock();
        try {
            SandboxEvent event = draft.numbered(nextId++, Instant.now());
            ring.addLast(event);
            if (ring.size() > ringSize) ring.removeFirst();
            for (EventSubscription subscriber : subscribers) {
                if (!subscriber.offer(event)) subscribers.remove(subscriber);
            }
            return event;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A subscription to the events after {@code since} (null: only new ones) that pass {@code filter}; those still in
     * the ring are queued first, with no gap to the live ones. Empty when {@code since} is no longer in the ring (or
     * is from an earlier daemon run): the client missed events and must list the sandboxes again.
     */
    public Optional<EventSubscription> subscribe(Long since, Predicate<SandboxEvent> filter) {
        lock.lock();
        try {
            List<SandboxEvent> replay = new ArrayList<>();
            if (since != null) {
                long oldest = ring.isEmpty() ? nextId : ring.getFirst().id();
                if (since < oldest - 1 || since >= nextId) return Optional.empty();
                ring.stream().filter(e -> e.id() > since).filter(filter).forEach(replay::add);
            }
            EventSubscription subscription = new EventSubscription(Math.max(queueSize, replay.size()), filter, subscribers::remove);
            replay.forEach(subscription::offer);
            if (closed) {
                subscription.close();
            } else {
                subscribers.add(subscription);
            }
            return Optional.of(subscription);
        } finally {
            lock.unlock();
        }
    }

    /** The id of the oldest event still in the ring, and the next id: for the answer to a {@code since} that is too old. */
    public String describeRange() {
        lock.lock();
        try {
            long oldest = ring.isEmpty() ? nextId : ring.getFirst().id();
            return "the daemon keeps events " + oldest + " to " + (nextId - 1) + " (the last " + ringSize + ")";
        } finally {
            lock.unlock();
        }
    }

    /** Ends every subscription (the daemon stops): their streams end, no event is lost that was published before. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            subscribers.forEach(EventSubscription::close);
            subscribers.clear();
        } finally {
            lock.unlock();
        }
    }
}
