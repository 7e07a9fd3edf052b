package dev.ateom.microvm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.http.RequestBodies;
import dev.ateom.microvm.sandbox.EgressSpec;
import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.operations.OperationRegistry;
import dev.ateom.microvm.sandbox.ForkRequest;
import dev.ateom.microvm.sandbox.Operation;
import dev.ateom.microvm.sandbox.ProbeRequest;
import dev.ateom.microvm.sandbox.RestoreOptions;
import dev.ateom.microvm.sandbox.SandboxManager;
import dev.ateom.microvm.sandbox.SandboxSpec;
import io.helidon.webserver.http.HttpRules;
import dev.ateom.microvm.http.RouteTable;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.Map;

/** {@code /v1/sandboxes}: create or clone, list, show, suspend, checkpoint, fork, resume, delete, a guest probe command, and a new egress policy. */
public final class SandboxRoutes extends RouteTable {
    private final SandboxManager manager;
    private final RequestBodies bodies;
    private final AsyncAnswers answers;

    public SandboxRoutes(SandboxManager manager, RequestBodies bodies, OperationRegistry operations) {
        this.manager = manager;
        this.bodies = bodies;
        this.answers = new AsyncAnswers(operations);
    }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).post("/v1/sandboxes", this::create)
                .get("/v1/sandboxes", (req, res) -> Responses.json(res, 200, Map.of("items", manager.list())))
                .get("/v1/sandboxes/{id}", (req, res) -> Responses.json(res, 200, manager.get(id(req))))
                .post("/v1/sandboxes/{id}/suspend", (req, res) -> {
                    var tags = SnapshotRequest.tags(req, bodies);
                    answers.answer(req, res, Operation.SUSPEND, id(req), 200, id -> manager.suspend(id, tags));
                })
                .post("/v1/sandboxes/{id}/checkpoint", (req, res) -> {
                    var tags = SnapshotRequest.tags(req, bodies);
                    answers.answer(req, res, Operation.CHECKPOINT, id(req), 200, id -> manager.checkpoint(id, tags));
                })
                .post("/v1/sandboxes/{id}/fork", this::fork)
                .post("/v1/sandboxes/{id}/resume", (req, res) -> Responses.json(res, 200,
                        manager.resume(id(req), bodies.readOptionalJson(req, ResumeRequest.class, ResumeRequest.NONE).options())))
                .post("/v1/sandboxes/{id}/probe", (req, res) ->
                        Responses.json(res, 200, manager.probe(id(req), bodies.readJson(req, ProbeRequest.class))))
                .put("/v1/sandboxes/{id}/network/egress", (req, res) ->
                        Responses.json(res, 200, manager.replaceEgress(id(req), bodies.readJson(req, EgressSpec.class))))
                .delete("/v1/sandboxes/{id}", this::delete);
    }

    private void create(ServerRequest req, ServerResponse res) {
        ObjectNode body = bodies.readJson(req, ObjectNode.class);
        boolean adopt = RestoreRequestFields.takeAdopt(body);
        RestoreOptions options = RestoreRequestFields.take(body);
        if (AsyncAnswers.requested(req)) {
            Operation operation = adopt ? Operation.RESUME : body.hasNonNull("fromSnapshot") ? Operation.CLONE : Operation.CREATE;
            answers.start(req, res, operation, body.hasNonNull("id") ? body.path("id").asText() : null, 201, () -> adopt
                    ? manager.adopt(body.path("fromSnapshot").asText(), options)
                    : manager.create(bodies.convert(body, SandboxSpec.class), options));
            return;
        }
        var result = adopt ? manager.adopt(body.path("fromSnapshot").asText(), options)
                : manager.create(bodies.convert(body, SandboxSpec.class), options);
        res.header("Location", "/v1/sandboxes/" + result.sandbox().id());
        Responses.json(res, 201, result);
    }

    private void fork(ServerRequest req, ServerResponse res) {
        ForkRequest request = bodies.readJson(req, ForkRequest.class);
        answers.answer(req, res, Operation.FORK, id(req), 200, id -> manager.fork(id, request));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        boolean withSnapshots = QueryFlags.flag(req, "deleteSnapshots");
        manager.delete(id(req), withSnapshots);
        res.status(204).send();
    }

    private static String id(ServerRequest req) { return req.path().pathParameters().get("id"); }
}
