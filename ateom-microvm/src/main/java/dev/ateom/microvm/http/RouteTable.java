package dev.ateom.microvm.http;

import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An {@link HttpService} that registers its routes through {@link #routes(HttpRules)}, which also records
 * them: the test that keeps openapi.yaml in step with the server compares against this record.
 */
public abstract class RouteTable implements HttpService {
    private final List<Route> declared = Collections.synchronizedList(new ArrayList<>());

    /** One route: method and path template, e.g. {@code POST /v1/sandboxes/{id}/suspend}. */
    public record Route(String method, String path) {}

    public List<Route> declaredRoutes() { return List.copyOf(declared); }

    protected Registrar routes(HttpRules rules) { return new Registrar(rules); }

    /** Registers on the Helidon rules and records. */
    protected final class Registrar {
        private final HttpRules rules;

        private Registrar(HttpRules rules) { this.rules = rules; }

        public Registrar get(String path, Handler handler) {
            declared.add(new Route("GET", path));
            rules.get(path, handler);
            return this;
        }

        public Registrar post(String path, Handler handler) {
            declared.add(new Route("POST", path));
            rules.post(path, handler);
            return this;
        }

        public Registrar put(String path, Handler handler) {
            declared.add(new Route("PUT", path));
            rules.put(path, handler);
            return this;
        }

        public Registrar delete(String path, Handler handler) {
            declared.add(new Route("DELETE", path));
            rules.delete(path, handler);
            return this;
        }
    }
}
