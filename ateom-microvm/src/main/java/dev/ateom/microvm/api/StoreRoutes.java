package dev.ateom.microvm.api;

import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.http.RouteTable;
import dev.ateom.microvm.remote.RemoteSnapshots;
import io.helidon.webserver.http.HttpRules;

/** {@code /v1/store}: the snapshot store's settings, health and lease verdict, its garbage collection, the verdict's reset. */
public final class StoreRoutes extends RouteTable {
    private final RemoteSnapshots remote;

    public StoreRoutes(RemoteSnapshots remote) { this.remote = remote; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/v1/store", (req, res) -> Responses.json(res, 200, remote.describe()))
                .post("/v1/store/gc", (req, res) -> Responses.json(res, 200, remote.gc()))
                .post("/v1/store/lease-verdict/reset", (req, res) -> Responses.json(res, 200, remote.resetLeaseVerdict()));
    }
}
