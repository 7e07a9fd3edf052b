package dev.ateom.store;

import java.time.Instant;

/**
 * The store's lease verdict as every host of the fleet sees it ({@link LeaseVerdicts}): whether its conditional writes
 * can be trusted for leases, which host recorded that, when, and what it saw. {@code conditionalWrites} null is
 * UNKNOWN: no host has recorded a verdict yet (or an operator reset it).
 */
public record LeaseVerdict(ConditionalWrites conditionalWrites, String recordedBy, Instant recordedAt, String detail) {
    public static final LeaseVerdict UNKNOWN = new LeaseVerdict(null, null, null, "no host has recorded a verdict yet");

    public boolean known() {
        return conditionalWrites != null;
    }

    /** Leases can be had: the recorded verdict is HONOURED. */
    public boolean leasesSafe() {
        return conditionalWrites == ConditionalWrites.HONOURED;
    }

    /** Final until an operator resets it: any verdict but HONOURED and UNKNOWN. */
    public boolean isFinal() {
        return known() && !leasesSafe();
    }

    /** UNKNOWN, HONOURED, RACY, IGNORED or REFUSED. */
    public String state() {
        return known() ? conditionalWrites.name() : "UNKNOWN";
    }

    /** "RACY (recorded by host-b at 2026-...: ...)", for logs and refusals. */
    public String describe() {
        return known() ? state() + " (recorded by " + recordedBy + " at " + recordedAt + ": " + detail + ")" : "UNKNOWN (" + detail + ")";
    }
}
