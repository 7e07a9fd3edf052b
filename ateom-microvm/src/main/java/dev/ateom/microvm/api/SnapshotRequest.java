package dev.ateom.microvm.api;

import dev.ateom.microvm.http.RequestBodies;
import dev.ateom.microvm.sandbox.SnapshotTags;
import io.helidon.webserver.http.ServerRequest;

import java.util.Map;

/**
 * The optional body of suspend and checkpoint, {@code {"labels": {"k": "v"}}}; with {@code ?name=} it says what the
 * snapshot is called. An absent or empty body is no labels; an unknown field is refused.
 */
record SnapshotRequest(Map<String, String> labels) {
    static final SnapshotRequest NONE = new SnapshotRequest(null);

    /** The snapshot's name ({@code ?name=}) and labels (the body); checked by the sandbox manager. */
    static SnapshotTags tags(ServerRequest req, RequestBodies bodies) {
        String name = req.query().contains("name") ? req.query().get("name") : null;
        return new SnapshotTags(name, bodies.readOptionalJson(req, SnapshotRequest.class, NONE).labels());
    }
}
