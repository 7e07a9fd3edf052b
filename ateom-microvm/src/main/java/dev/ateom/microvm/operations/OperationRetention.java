package dev.ateom.microvm.operations;

import java.time.Duration;
import java.time.Instant;

/**
 * How long a finished operation is kept: until a client has seen it finished and {@code grace} passed since (so a
 * client that lost the answer to its last poll can ask again), or at most {@code ttl} after it finished when nobody
 * asks; and never more than {@code maxFinished} finished ones (the oldest go first). A running one is always kept.
 */
public record OperationRetention(Duration ttl, Duration grace, int maxFinished) {
    public static final int DEFAULT_MAX_FINISHED = 1000;
    private static final Duration MAX_GRACE = Duration.ofSeconds(10);

    /** The daemon's retention: {@code ttl} as configured, a grace of 10 s (at most half the ttl). */
    public static OperationRetention of(Duration ttl) {
        Duration half = ttl.dividedBy(2);
        return new OperationRetention(ttl, half.compareTo(MAX_GRACE) < 0 ? half : MAX_GRACE, DEFAULT_MAX_FINISHED);
    }

    /** Whether an operation that finished at {@code finishedAt} and was first seen finished at {@code seenAt} (or null) is gone at {@code now}. */
    boolean expired(Instant finishedAt, Instant seenAt, Instant now) {
        if (finishedAt == null) return false;
        if (!now.isBefore(finishedAt.plus(ttl))) return true;
        return seenAt != null && !now.isBefore(seenAt.plus(grace));
    }
}
