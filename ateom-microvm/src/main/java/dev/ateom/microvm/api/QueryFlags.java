package dev.ateom.microvm.api;

import dev.ateom.microvm.http.ApiException;
import io.helidon.webserver.http.ServerRequest;

/** Boolean query parameters ({@code ?verify=true}), refusing anything but true/false so typos are not silently ignored. */
final class QueryFlags {
    private QueryFlags() {}

    static boolean flag(ServerRequest req, String name) {
        var query = req.query();
        if (!query.contains(name)) return false;
        String value = query.get(name);
        return switch (value) {
            case "true", "" -> true;
            case "false" -> false;
            default -> throw ApiException.badRequest("query parameter '" + name + "' must be true or false, got '" + value + "'");
        };
    }
}
