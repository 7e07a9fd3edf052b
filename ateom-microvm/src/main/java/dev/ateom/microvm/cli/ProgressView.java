package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** What the user sees of an operation being waited for ({@link OperationWaiter}): each poll, then the end. */
interface ProgressView {
    ProgressView NONE = new ProgressView() {
        @Override
        public void update(JsonNode operation) { }

        @Override
        public void done(JsonNode operation) { }
    };

    /** The operation as the last poll found it, still running. */
    void update(JsonNode operation);

    /** The operation finished (succeeded or failed). */
    void done(JsonNode operation);
}
