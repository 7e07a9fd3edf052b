package dev.ateom.chv;

/**
 * Refused before it reached CHV, because CHV mishandles it: two fs entries on one socket (CHV v54 hangs its
 * whole API), duplicate tags, a vhost-user socket that does not exist or has no listener (CHV waits 60 s
 * and fails), a snapshot dir without its files. Names the field and the reason.
 */
public final class ChvConfigRejectedException extends ChvException {
    ChvConfigRejectedException(String endpoint, String reason) {
        super(endpoint, reason, null);
    }
}
