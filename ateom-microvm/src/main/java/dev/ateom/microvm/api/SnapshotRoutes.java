package dev.ateom.microvm.api;

import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.sandbox.SnapshotCatalog;
import io.helidon.webserver.http.HttpRules;
import dev.ateom.microvm.http.RouteTable;
import io.helidon.webserver.http.ServerRequest;

import java.util.Map;

/** {@code /v1/snapshots}: list, inspect (optionally verifying every checksum), delete. */
public final class SnapshotRoutes extends RouteTable {
    private final SnapshotCatalog snapshots;

    public SnapshotRoutes(SnapshotCatalog snapshots) { this.snapshots = snapshots; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/v1/snapshots", (req, res) -> Responses.json(res, 200, Map.of("items", snapshots.list())))
                .get("/v1/snapshots/{id}", (req, res) -> Responses.json(res, 200, snapshots.inspect(id(req), QueryFlags.flag(req, "verify"))))
                .delete("/v1/snapshots/{id}", (req, res) -> {
                    snapshots.delete(id(req), QueryFlags.flag(req, "force"));
                    res.status(204).send();
                });
    }

    private static String id(ServerRequest req) { return req.path().pathParameters().get("id"); }
}
