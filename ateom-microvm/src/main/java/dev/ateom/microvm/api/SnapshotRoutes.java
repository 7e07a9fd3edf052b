package dev.ateom.microvm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.remote.RemoteSnapshots;
import dev.ateom.microvm.remote.RemoteState;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import dev.ateom.microvm.sandbox.SnapshotFilter;
import io.helidon.webserver.http.HttpRules;
import dev.ateom.microvm.http.RouteTable;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /v1/snapshots}: list, inspect (optionally verifying every checksum), delete; with a snapshot store also
 * the store's listing ({@code ?remote=true}), each snapshot's {@code remote} state, push and remote delete.
 */
public final class SnapshotRoutes extends RouteTable {
    private final SnapshotCatalog snapshots;
    private final RemoteSnapshots remote;

    public SnapshotRoutes(SnapshotCatalog snapshots, RemoteSnapshots remote) {
        this.snapshots = snapshots;
        this.remote = remote;
    }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/v1/snapshots", this::list)
                .get("/v1/snapshots/{id}", this::inspect)
                .post("/v1/snapshots/{id}/push", (req, res) -> Responses.json(res, 202, pushAnswer(id(req), remote.push(id(req)))))
                .delete("/v1/snapshots/{id}", (req, res) -> {
                    if (QueryFlags.flag(req, "remote")) {
                        remote.delete(id(req));
                    } else {
                        snapshots.delete(id(req), QueryFlags.flag(req, "force"));
                    }
                    res.status(204).send();
                });
    }

    private void list(ServerRequest req, ServerResponse res) {
        if (QueryFlags.flag(req, "remote")) {
            for (String local : List.of("sandbox", "name", "label")) {
                if (req.query().contains(local)) {
                    throw ApiException.badRequest("query parameter '" + local + "' filters this host's snapshots; it cannot be "
                            + "combined with remote=true");
                }
            }
            Responses.json(res, 200, Map.of("items", remote.list()));
            return;
        }
        List<SnapshotCatalog.SnapshotSummary> local = snapshots.list(filter(req));
        if (!remote.configured()) {
            Responses.json(res, 200, Map.of("items", local));
            return;
        }
        Map<String, RemoteState> states = remote.statesOf(local.stream().map(SnapshotCatalog.SnapshotSummary::id).toList());
        List<ObjectNode> items = local.stream().map(summary -> {
            ObjectNode item = ApiJson.mapper().valueToTree(summary);
            item.set("remote", ApiJson.mapper().valueToTree(states.get(summary.id())));
            return item;
        }).toList();
        Responses.json(res, 200, Map.of("items", items));
    }

    /** {@code ?sandbox=&name=&label=k=v} ({@code label} may repeat); bad syntax is a 400 naming the parameter. */
    private static SnapshotFilter filter(ServerRequest req) {
        var query = req.query();
        return SnapshotFilter.parse(query.contains("sandbox") ? query.get("sandbox") : null, query.contains("name") ? query.get("name") : null,
                query.contains("label") ? query.all("label") : List.of());
    }

    private void inspect(ServerRequest req, ServerResponse res) {
        String id = id(req);
        Map<String, Object> report = new LinkedHashMap<>();
        try {
            report.putAll(snapshots.inspect(id, QueryFlags.flag(req, "verify")));
        } catch (NotFoundException e) {
            // not on this host: a snapshot only the store has is shown by its remote state (clone or adopt pulls it)
            Optional<RemoteState> inStore = remote.stateOf(id).filter(state -> state.state().equals("pushed"));
            if (inStore.isEmpty()) throw e;
            report.put("id", id);
            report.put("local", false);
            report.put("remote", inStore.get());
            Responses.json(res, 200, report);
            return;
        }
        remote.stateOf(id).ifPresent(state -> {
            report.put("local", true);
            report.put("remote", state);
        });
        Responses.json(res, 200, report);
    }

    private static Map<String, Object> pushAnswer(String id, RemoteState state) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", id);
        answer.put("remote", state);
        return answer;
    }

    private static String id(ServerRequest req) { return req.path().pathParameters().get("id"); }
}
