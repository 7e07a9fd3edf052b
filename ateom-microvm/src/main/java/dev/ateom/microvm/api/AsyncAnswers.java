package dev.ateom.microvm.api;

import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.operations.OperationRegistry;
import dev.ateom.microvm.operations.OperationStatus;
import dev.ateom.microvm.sandbox.Operation;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code ?async=true} on a long operation: instead of its answer, 202 with the operation ({@code Location:
 * /v1/operations/{id}}) once its checks passed; a request that fails them is answered as without the flag.
 */
final class AsyncAnswers {
    private final OperationRegistry operations;

    AsyncAnswers(OperationRegistry operations) { this.operations = operations; }

    /** Whether the request asks for an asynchronous answer. */
    static boolean requested(ServerRequest req) { return QueryFlags.flag(req, "async"); }

    /**
     * Answers {@code call}'s result on the sandbox with {@code status}, or with {@code ?async=true} starts it as an
     * operation and answers 202. The call gets the id, not the request: it may run after the request is answered.
     */
    void answer(ServerRequest req, ServerResponse res, Operation operation, String sandboxId, int status, Function<String, ?> call) {
        if (requested(req)) {
            start(req, res, operation, sandboxId, status, () -> call.apply(sandboxId));
        } else {
            Responses.json(res, status, call.apply(sandboxId));
        }
    }

    /** Starts {@code call} as an operation and answers 202 with it. */
    void start(ServerRequest req, ServerResponse res, Operation operation, String sandboxId, int status, Callable<?> call) {
        OperationStatus started = operations.start(operation, sandboxId, req.path().path(), status, call);
        res.header("Location", OperationRoutes.PATH + "/" + started.id());
        Responses.json(res, 202, started);
    }
}
