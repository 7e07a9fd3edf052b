package dev.ateom.store;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * A test-only HTTP proxy in front of a test S3 server that makes {@code If-None-Match: *} atomic: s3proxy 2.9.0 checks
 * the condition correctly one request at a time but not under concurrency, so the proxy lets conditional PUTs
 * through one at a time. Everything else is forwarded unchanged (Host included, so SigV4 signatures stay valid;
 * that needs {@code -Dsun.net.http.allowRestrictedHeaders=true}, set for this module's tests). It can also play a
 * store that misbehaves: rewrite upload bodies before forwarding them ({@link #rewriteUploads}: a store that damages
 * what it keeps; only a server that checks no body, s3rver, keeps the result) or answer requests itself
 * ({@link #answerInstead}: a hostile store that announces huge objects or answers slowly forever).
 */
public final class ConditionalPutProxy implements AutoCloseable {
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "transfer-encoding", "expect", "content-length", "date");

    private final URI backend;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(16);
    private final ReentrantReadWriteLock forwarding = new ReentrantReadWriteLock();
    /** Deletes are forwarded alone, everything else side by side: see {@link #forward}. */
    private final ReentrantReadWriteLock deletesAlone = new ReentrantReadWriteLock();
    private final ReentrantLock conditionalWrites = new ReentrantLock(true);
    private volatile BiConsumer<String, String> observer = (method, path) -> { };
    private volatile BiFunction<String, byte[], byte[]> uploads = (path, body) -> body;
    private volatile Answer answer = (exchange, body) -> false;

    /** Answers a request in place of the server; returns false to let it be forwarded. */
    @FunctionalInterface
    public interface Answer {
        boolean answered(HttpExchange exchange, byte[] requestBody) throws IOException;
    }

    public ConditionalPutProxy(URI backend) throws IOException {
        this.backend = backend;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/", this::forward);
        server.setExecutor(threads);
        server.start();
    }

    /**
     * Called with each request's method and raw path just before it is forwarded, on the request's thread: tests count
     * requests, or stop the backend there to cut a transfer off at an exact request (which then finds no server).
     */
    public void beforeForwarding(BiConsumer<String, String> observer) {
        this.observer = observer;
    }

    /** PUT bodies become {@code rewrite(rawPath, body)} before they are forwarded; the headers (signed) stay. */
    public void rewriteUploads(BiFunction<String, byte[], byte[]> rewrite) {
        this.uploads = rewrite;
    }

    /** Each request is offered to {@code answer} first (on the request's thread, after its body was read). */
    public void answerInstead(Answer answer) {
        this.answer = answer;
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /**
     * Runs {@code action} while no request is being forwarded and none starts: a backend stopped there is stopped
     * between requests, never in the middle of writing one (s3rver killed mid-write kept objects whose metadata it
     * could no longer list, answering 500 to every listing after its restart).
     */
    public void betweenForwards(Runnable action) {
        forwarding.writeLock().lock();
        try {
            action.run();
        } finally {
            forwarding.writeLock().unlock();
        }
    }

    /**
     * A delete is forwarded while no other request is: s3rver removes an object's directory once it is empty, and a PUT
     * into that directory at the same moment opens its file in a directory that is gone; the ENOENT is an unhandled
     * 'error' event that ends s3rver (every request after it refused). A push that finds a damaged chunk deletes it
     * while its other uploads run (DamagedUploadsTest: s3rver died in 1 of a fresh-clone run's pushes, and within 25 of
     * 60 pushes in a row). Stores keep deletes and writes apart themselves; this front does it for s3rver.
     */
    private void forward(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        observer.accept(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath());
        String query = exchange.getRequestURI().getRawQuery();
        boolean delete = exchange.getRequestMethod().equals("DELETE")
                || exchange.getRequestMethod().equals("POST") && query != null && query.startsWith("delete");
        forwarding.readLock().lock();
        var lock = delete ? deletesAlone.writeLock() : deletesAlone.readLock();
        lock.lock();
        try {
            forwardRead(exchange, body);
        } finally {
            lock.unlock();
            forwarding.readLock().unlock();
        }
    }

    private void forwardRead(HttpExchange exchange, byte[] requestBody) throws IOException {
        boolean locked = false;
        byte[] body = requestBody;
        try (exchange) {
            if (answer.answered(exchange, body)) {
                return; // answered in place: not serialized with the conditional writes it forwards
            }
            if (exchange.getRequestHeaders().containsKey("If-None-Match")) {
                conditionalWrites.lock();
                locked = true;
            }
            if (exchange.getRequestMethod().equals("PUT")) {
                body = uploads.apply(exchange.getRequestURI().getRawPath(), body);
            }
            HttpURLConnection connection = (HttpURLConnection) backend.resolve(exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery())).toURL().openConnection();
            connection.setRequestMethod(exchange.getRequestMethod());
            connection.setInstanceFollowRedirects(false);
            // a new connection per request: a kept-alive one the backend closed meanwhile (Node's s3rver closes idle
            // ones after 5 s) fails a streamed PUT with "Unexpected end of file", which HttpURLConnection does not retry,
            // and this front then closed the client's exchange unanswered (DamagedUploadsTest, a fresh-clone run)
            connection.setRequestProperty("Connection", "close");
            for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
                if (!HOP_BY_HOP.contains(header.getKey().toLowerCase())) {
                    header.getValue().forEach(value -> connection.addRequestProperty(header.getKey(), value));
                }
            }
            if (body.length > 0 || exchange.getRequestMethod().equals("PUT") || exchange.getRequestMethod().equals("POST")) {
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(body.length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            byte[] response = in == null ? new byte[0] : in.readAllBytes();
            boolean head = exchange.getRequestMethod().equals("HEAD");
            for (Map.Entry<String, List<String>> header : connection.getHeaderFields().entrySet()) {
                // a HEAD answer's Content-Length is the object's size (the SDK reads it), not a body's: keep it
                boolean headSize = head && "content-length".equalsIgnoreCase(header.getKey());
                if (header.getKey() != null && (headSize || !HOP_BY_HOP.contains(header.getKey().toLowerCase()))) {
                    exchange.getResponseHeaders().put(header.getKey(), header.getValue());
                }
            }
            exchange.sendResponseHeaders(status, head || response.length == 0 ? -1 : response.length);
            if (!head && response.length > 0) {
                exchange.getResponseBody().write(response);
            }
        } finally {
            if (locked) {
                conditionalWrites.unlock();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
