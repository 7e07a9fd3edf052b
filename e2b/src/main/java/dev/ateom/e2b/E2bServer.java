package dev.ateom.e2b;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.util.Optional;

import static java.lang.System.Logger.Level.ERROR;

/**
 * The E2B listener: envd requests (by their {@code E2b-Sandbox-*} headers or {@code <port>-<id>.<domain>} host) go to
 * the proxy, which checks envd's own token where the sandbox is secure; every other request needs an accepted
 * {@code X-API-Key}. Errors are E2B's {@code {code, message}}.
 */
final class E2bServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(E2bServer.class.getName());

    private final WebServer server;

    E2bServer(ListenAddress address, ApiKeys keys, E2bService service) {
        EnvdProxy proxy = new EnvdProxy(service);
        // envd requests pass the key check (envd has its own token) and are taken by the first route; a handler, not the
        // filter, streams them, since Helidon completes a response written through its output stream only in a route
        Filter keyCheck = (FilterChain chain, RoutingRequest req, RoutingResponse res) -> {
            if (target(req).isEmpty() && !keys.accepts(req.headers().first(HeaderNames.create("X-API-Key")).orElse(null))) {
                answer(res, E2bError.unauthorized("missing or unknown X-API-Key"));
                return;
            }
            chain.proceed();
        };
        HttpService envd = rules -> rules.any((req, res) -> {
            Optional<EnvdTarget> target = target(req);
            if (target.isPresent()) {
                proxy.forward(target.get(), req, res);
            } else {
                res.next();
            }
        });
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter(keyCheck)
                .register(envd)
                .register(new E2bRoutes(service))
                .error(Throwable.class, (req, res, e) -> answer(res, e));
        this.server = WebServer.builder().host(address.host()).port(address.port()).routing(routing).shutdownHook(false).build().start();
    }

    int port() { return server.port(); }

    private static Optional<EnvdTarget> target(ServerRequest req) {
        return EnvdTarget.of(req.headers().first(HeaderNames.create("E2b-Sandbox-Id")).orElse(null),
                req.headers().first(HeaderNames.create("E2b-Sandbox-Port")).orElse(null),
                req.headers().first(HeaderNames.HOST).orElse(null));
    }

    private static void answer(ServerResponse res, Throwable e) {
        E2bError error = E2bErrors.of(e);
        if (error.status() >= 500 && !(e instanceof E2bError)) LOG.log(ERROR, "e2b: request failed", e);
        if (res.isSent()) return;
        E2bRoutes.json(res, error.status(), E2bViews.error(error.status(), error.getMessage()));
    }

    @Override
    public void close() { server.stop(); }
}
