package dev.ateom.microvm.http;

import dev.ateom.microvm.sandbox.SandboxException;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpService;

import java.util.List;

/** The Helidon web server: guard filter, the given services, and problem documents for every error. */
public final class ApiServer implements AutoCloseable {
    /** Helidon's switch for where its service registry looks for service descriptors. */
    static final String HELIDON_METADATA_MODE = "io.helidon.metadata.mode";
    private static final System.Logger LOG = System.getLogger(ApiServer.class.getName());

    static {
        // Helidon's service registry otherwise reads the metadata files of every jar on the class path when the
        // first routing is built (~120 ms of CPU at the daemon's start). The API uses none of the services found
        // there (config sources, mapper providers, metrics factories, injection scopes, the features banner): its
        // routes take strings and send bytes, and the HTTP/1 connection comes from the server's own service loader.
        // A value set on the command line (-Dio.helidon.metadata.mode=AUTO) wins.
        if (System.getProperty(HELIDON_METADATA_MODE) == null) System.setProperty(HELIDON_METADATA_MODE, "NONE");
    }

    private final WebServer server;

    public ApiServer(String host, int port, long maxRequestBytes, ApiToken token, List<? extends HttpService> services) {
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter(new RequestGuardFilter(token, maxRequestBytes));
        services.forEach(routing::register);
        routing.any((req, res) -> Responses.problem(res, new ApiException(404, "no-such-route", "No such route",
                        req.prologue().method().text() + " " + req.path().path() + " is not part of the API (see /openapi.yaml)"),
                req.path().path()))
                .error(ApiException.class, (req, res, e) -> Responses.problem(res, e, req.path().path()))
                .error(SandboxException.class, (req, res, e) -> Responses.problem(res, SandboxProblems.of(e), req.path().path()))
                // Throwable, not Exception: an Error (a stale class, a full heap) would otherwise be Helidon's plain text
                .error(Throwable.class, (req, res, e) -> {
                    LOG.log(System.Logger.Level.ERROR, "unhandled error serving " + req.path().path(), e);
                    Responses.problem(res, new ApiException(500, "internal-error", "Internal error",
                            e.getClass().getSimpleName() + ": " + e.getMessage()), req.path().path());
                });
        this.server = WebServer.builder()
                .host(host)
                .port(port)
                // backstop only: RequestGuardFilter and RequestBodies answer 413 with a problem document first
                .maxPayloadSize(maxRequestBytes * 4)
                .routing(routing)
                .shutdownHook(false)
                .build()
                .start();
    }

    public int port() { return server.port(); }

    @Override
    public void close() { server.stop(); }
}
