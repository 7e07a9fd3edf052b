package dev.ateom.microvm.events;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One client's view of the events: a bounded queue the log fills and the client's stream drains. When the queue is
 * full the subscription is cut off instead of making the publisher wait; its stream then ends with the id of the last
 * event it delivered, so the client can resume with {@code since}.
 */
public final class EventSubscription implements AutoCloseable {
    /** Marks the end of the queue; one slot beyond the capacity is kept for it. */
    private static final SandboxEvent END = SandboxEvent.syncError("", "end of subscription");

    private final int capacity;
    private final BlockingQueue<SandboxEvent> queue;
    private final Predicate<SandboxEvent> filter;
    private final Consumer<EventSubscription> unsubscribe;
    private volatile Ending ending;

    /** Why a subscription ended. */
    public enum Ending { CUT_OFF, CLOSED }

    /** What {@link #next} found: an event, nothing yet ({@code event} and {@code ending} null), or the end. */
    public record Next(SandboxEvent event, Ending ending) {}

    EventSubscription(int capacity, Predicate<SandboxEvent> filter, Consumer<EventSubscription> unsubscribe) {
        this.capacity = capacity;
        this.queue = new ArrayBlockingQueue<>(capacity + 1);
        this.filter = filter;
        this.unsubscribe = unsubscribe;
    }

    /** Queues the event if it passes the filter; false when this subscription is over (cut off now or before). */
    synchronized boolean offer(SandboxEvent event) {
        if (ending != null) return false;
        if (!filter.test(event)) return true;
        if (queue.size() >= capacity) {
            end(Ending.CUT_OFF);
            return false;
        }
        queue.add(event);
        return true;
    }

    /** The next event, waiting at most {@code timeout}. */
    public Next next(Duration timeout) throws InterruptedException {
        SandboxEvent event = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (event == END) return new Next(null, ending);
        return new Next(event, null);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (ending == null) end(Ending.CLOSED);
        }
        unsubscribe.accept(this);
    }

    private void end(Ending why) {
        ending = why;
        queue.add(END);
    }
}
