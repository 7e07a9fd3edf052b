package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The CLI's HTTP client: adds the bearer token, turns problem documents into {@link ClientException}s. */
final class DaemonClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ClientOptions options;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    DaemonClient(ClientOptions options) { this.options = options; }

    JsonNode get(String path) { return send("GET", path, null); }

    JsonNode post(String path, String jsonBody) { return send("POST", path, jsonBody); }

    JsonNode put(String path, String jsonBody) { return send("PUT", path, jsonBody); }

    JsonNode delete(String path) { return send("DELETE", path, null); }

    /**
     * Reads a Server-Sent Events stream until it ends or {@code lines} answers false, handing it each line (the SSE
     * framing is the caller's: {@link ServerSentEvents}).
     */
    void stream(String path, Predicate<String> lines) {
        HttpRequest req = request(path).header("Accept", "text/event-stream").GET().build();
        try {
            HttpResponse<Stream<String>> res = http.send(req, HttpResponse.BodyHandlers.ofLines());
            if (res.statusCode() >= 400) {
                String body = res.body().collect(Collectors.joining("\n"));
                JsonNode json = parse(body);
                throw new ClientException(ExitCodes.forStatus(res.statusCode()), describeProblem(res.statusCode(), json, body), json);
            }
            try (Stream<String> body = res.body()) {
                body.takeWhile(lines).forEach(line -> { });
            }
        } catch (ConnectException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "cannot reach the ateom daemon at " + options.url
                    + " (is it running? set --url or ATEOM_URL)");
        } catch (IOException | UncheckedIOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "the events stream from " + options.url + " broke: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ExitCodes.API_ERROR, "interrupted");
        }
    }

    private HttpRequest.Builder request(String path) {
        String token;
        try {
            token = Files.readString(options.tokenFile).strip();
        } catch (IOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "cannot read token file " + options.tokenFile + ": " + e.getMessage()
                    + " (use --token-file or ATEOM_TOKEN_FILE)");
        }
        return HttpRequest.newBuilder(URI.create(options.url.replaceAll("/+$", "") + path)).header("Authorization", "Bearer " + token);
    }

    private JsonNode send(String method, String path, String body) {
        HttpRequest.Builder req = request(path).timeout(Duration.ofMinutes(10));
        if (body != null) {
            req.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            req.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> res;
        try {
            res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "cannot reach the ateom daemon at " + options.url
                    + " (is it running? set --url or ATEOM_URL)");
        } catch (IOException e) {
            throw new ClientException(ExitCodes.UNREACHABLE, "request to " + options.url + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ExitCodes.API_ERROR, "interrupted");
        }
        JsonNode json = parse(res.body());
        if (res.statusCode() >= 400) throw problem(res.statusCode(), json, res.body());
        return json;
    }

    /** The failure of a call answered {@code status} with {@code problem} ({@code raw}: the body, when it is not one). */
    static ClientException problem(int status, JsonNode problem, String raw) {
        return new ClientException(ExitCodes.forStatus(status), describeProblem(status, problem, raw), problem);
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) return JSON.createObjectNode();
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return JSON.getNodeFactory().textNode(body);
        }
    }

    private static String describeProblem(int status, JsonNode problem, String raw) {
        if (!problem.has("title")) return "HTTP " + status + ": " + raw;
        StringBuilder out = new StringBuilder(problem.path("title").asText()).append(" (HTTP ").append(status).append(")");
        if (problem.hasNonNull("detail")) out.append(": ").append(problem.get("detail").asText());
        for (JsonNode error : problem.path("errors")) {
            out.append("\n  ").append(error.path("field").asText()).append(": ").append(error.path("reason").asText());
        }
        if (problem.hasNonNull("state")) out.append("\n  sandbox state: ").append(problem.get("state").asText());
        return out.toString();
    }
}
