package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.GuestProbe;
import dev.ateom.microvm.sandbox.IdleSpec;
import dev.ateom.microvm.sandbox.SandboxRecord;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.System.Logger.Level.INFO;

/**
 * The activity the guests report for their idle timeouts: the probe's {@code activity} counter, polled every quarter
 * of the timeout (1 to 30 s) in a virtual thread of its own, so a guest that does not answer holds nobody up. A
 * changed counter is use of the sandbox. Only sandboxes whose readiness probe is configured are polled; a probe that
 * does not answer reports nothing (the sandbox is then idle when the API is).
 */
final class GuestActivity {
    private static final System.Logger LOG = System.getLogger(GuestActivity.class.getName());
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_INTERVAL = Duration.ofSeconds(30);

    private final GuestProbe probe;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    GuestActivity(GuestProbe probe) { this.probe = probe; }

    /** Whether the sandbox's guest can report activity: its readiness probe is configured and its VM runs. */
    static boolean observable(SandboxRecord record) {
        return record.spec().readinessOrDefault().usesProbe() && record.runtime() != null && record.runtime().vsockSocket() != null;
    }

    /** How often a guest's counter is read: a quarter of the timeout, 1 to 30 s. */
    static Duration interval(IdleSpec idle) {
        Duration quarter = Duration.ofMillis(idle.afterSeconds() * 250);
        return quarter.compareTo(MIN_INTERVAL) < 0 ? MIN_INTERVAL : quarter.compareTo(MAX_INTERVAL) > 0 ? MAX_INTERVAL : quarter;
    }

    /**
     * Whether the guest reported activity since the last call (by a poll that has finished); starts the next poll in
     * the background when one is due.
     */
    boolean reportedSince(SandboxRecord record, Instant now) {
        if (!observable(record)) return false;
        Counter counter = counters.computeIfAbsent(record.id(), id -> new Counter());
        if (counter.startPollIfDue(now, interval(record.spec().idle()))) {
            Thread.ofVirtual().name("ateom-idle-activity-" + record.id()).start(() -> counter.finishPoll(read(record, counter)));
        }
        return counter.takeChanged();
    }

    /** Reads the counter now, waiting for the answer: whether the guest reported activity since the last read. */
    boolean reportsNow(SandboxRecord record) {
        if (!observable(record)) return false;
        Counter counter = counters.computeIfAbsent(record.id(), id -> new Counter());
        counter.finishPoll(read(record, counter));
        return counter.takeChanged();
    }

    /** The sandbox stopped running (or is gone): its next run starts from a fresh reading. */
    void forget(String sandboxId) { counters.remove(sandboxId); }

    /** The counter, or null when the probe did not answer (logged once per distinct failure). */
    private Long read(SandboxRecord record, Counter counter) {
        try {
            long value = probe.activity(Path.of(record.runtime().vsockSocket()), record.spec().readiness().port());
            counter.failure = null;
            return value;
        } catch (RuntimeException e) {
            String failure = Objects.toString(e.getMessage(), e.toString());
            if (!failure.equals(counter.failure)) {
                counter.failure = failure;
                LOG.log(INFO, "sandbox " + record.id() + ": the guest probe reports no activity (" + failure
                        + "); its idle timeout counts API use only until it answers");
            }
            return null;
        }
    }

    /** One guest's last reading; the scheduler's thread and the poll's thread meet here. */
    private static final class Counter {
        private Long last;
        private boolean changed;
        private boolean polling;
        private Instant nextPoll = Instant.MIN;
        private volatile String failure;

        synchronized boolean startPollIfDue(Instant now, Duration interval) {
            if (polling || now.isBefore(nextPoll)) return false;
            polling = true;
            nextPoll = now.plus(interval);
            return true;
        }

        synchronized void finishPoll(Long value) {
            polling = false;
            if (value == null) return;
            if (last != null && !last.equals(value)) changed = true;
            last = value;
        }

        synchronized boolean takeChanged() {
            boolean was = changed;
            changed = false;
            return was;
        }
    }
}
