package dev.ateom.microvm.api;

import dev.ateom.microvm.host.HostInventory;
import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.http.RouteTable;
import io.helidon.webserver.http.HttpRules;

/** {@code GET /v1/host}: what this host offers sandboxes (KVM, cgroups, Landlock, nftables, Docker's forward policy, CHV). */
public final class HostRoutes extends RouteTable {
    private final HostInventory host;

    public HostRoutes(HostInventory host) { this.host = host; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/v1/host", (req, res) -> Responses.json(res, 200, host.report()));
    }
}
