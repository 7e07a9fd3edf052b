package dev.ateom.microvm.remote;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.store.LeaseVerdict;

import java.time.Instant;

/**
 * The store's lease verdict as {@code GET /v1/store} shows it: {@code state} UNKNOWN, HONOURED, RACY, IGNORED or
 * REFUSED; who recorded it, when, and what that host saw; {@code leasesSafe} whether leases can be had from the store.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LeaseVerdictView(String state, boolean leasesSafe, String recordedBy, Instant recordedAt, String detail) {
    static LeaseVerdictView of(LeaseVerdict verdict) {
        return new LeaseVerdictView(verdict.state(), verdict.leasesSafe(), verdict.recordedBy(), verdict.recordedAt(), verdict.detail());
    }
}
