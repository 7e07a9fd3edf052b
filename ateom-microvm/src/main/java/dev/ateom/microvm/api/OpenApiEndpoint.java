package dev.ateom.microvm.api;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import dev.ateom.microvm.http.RouteTable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** {@code GET /openapi.yaml}: the API description shipped in the jar (kept in step with the routes by a test). */
public final class OpenApiEndpoint extends RouteTable {
    public static final String RESOURCE = "/openapi.yaml";
    private final byte[] document;

    public OpenApiEndpoint() {
        try (InputStream in = OpenApiEndpoint.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("openapi.yaml missing from the daemon's jar");
            document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/openapi.yaml", (req, res) -> {
            res.header(HeaderNames.CONTENT_TYPE, "application/yaml");
            res.send(document);
        });
    }
}
