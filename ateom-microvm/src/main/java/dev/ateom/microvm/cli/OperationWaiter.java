package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Runs a long call with {@code ?async=true} and polls its operation until it ends, showing its progress: the answer
 * is the body the call without the flag would have answered, a failure the same {@link ClientException} (message and
 * exit code), so a command's output does not depend on how it waited.
 */
final class OperationWaiter {
    static final long POLL_MILLIS = 100;

    private final DaemonClient client;
    private final ProgressView view;

    OperationWaiter(DaemonClient client, ProgressView view) {
        this.client = client;
        this.view = view;
    }

    /** {@code POST path?async=true} with {@code body}, waited for, with a progress bar on a terminal after a second. */
    static JsonNode post(DaemonClient client, String what, String path, String body) throws InterruptedException {
        return new OperationWaiter(client, DelayedProgressBar.onTerminal(what)).run(path, body);
    }

    JsonNode run(String path, String body) throws InterruptedException {
        JsonNode operation = client.post(path + (path.contains("?") ? "&" : "?") + "async=true", body);
        String location = "/v1/operations/" + operation.path("id").asText();
        while ("running".equals(operation.path("state").asText())) {
            view.update(operation);
            Thread.sleep(POLL_MILLIS);
            operation = client.get(location);
        }
        view.done(operation);
        if (!"succeeded".equals(operation.path("state").asText())) {
            throw DaemonClient.problem(operation.path("status").asInt(500), operation.path("problem"), operation.toString());
        }
        return operation.path("result");
    }
}
