package dev.ateom.microvm.remote;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.store.PushStatus;

/**
 * A snapshot's place in the store as {@code GET /v1/snapshots/{id}} shows it under {@code remote}:
 * {@code pending|pushing|pushed|failed} for a push this daemon runs or ran, {@code pushed} for one found in the
 * store, {@code not-pushed} when the store does not have it, {@code unknown} when the store could not be asked.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RemoteState(String state, Long totalBytes, Long doneBytes, Long bytesUploaded, Long bytesDeduplicated, String error) {
    static RemoteState of(PushStatus status) {
        return new RemoteState(status.state().pushWord(), status.totalBytes(), status.doneBytes(), status.bytesUploaded(),
                status.bytesDeduplicated(), status.error().orElse(null));
    }

    static RemoteState inStore() { return new RemoteState("pushed", null, null, null, null, null); }

    static RemoteState notPushed() { return new RemoteState("not-pushed", null, null, null, null, null); }

    static RemoteState unknown(String error) { return new RemoteState("unknown", null, null, null, null, error); }
}
