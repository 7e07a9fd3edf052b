package dev.ateom.microvm.api;

import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.http.RouteTable;
import dev.ateom.microvm.operations.OperationRegistry;
import io.helidon.webserver.http.HttpRules;

import java.util.Map;

/** {@code /v1/operations}: the asynchronous operations ({@code ?async=true}) still kept, one or all. */
public final class OperationRoutes extends RouteTable {
    static final String PATH = "/v1/operations";
    private final OperationRegistry operations;

    public OperationRoutes(OperationRegistry operations) { this.operations = operations; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get(PATH, (req, res) -> Responses.json(res, 200, Map.of("items", operations.list())))
                .get(PATH + "/{id}", (req, res) -> {
                    String id = req.path().pathParameters().get("id");
                    Responses.json(res, 200, operations.fetch(id).orElseThrow(() -> new ApiException(404, "not-found", "Operation not found",
                            "operation '" + id + "' does not exist: it never did, or it finished and was dropped (a finished operation is "
                            + "kept until it was fetched and a short grace passed, or until its time to live ran out)")));
                });
    }
}
