package dev.ateom.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The daemon's REST API over {@link HttpClient}, with the bearer token of its state dir. */
final class DaemonApi {
    static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;
    private final String token;

    DaemonApi(int port, String token) {
        this.port = port;
        this.token = token;
    }

    record Response(int status, JsonNode body) {
        Response expect(int expected, String what) {
            assertThat(status).as("%s: %s", what, body).isEqualTo(expected);
            return this;
        }
    }

    Response get(String path) throws IOException, InterruptedException { return send(request(path).GET()); }

    Response delete(String path) throws IOException, InterruptedException { return send(request(path).DELETE()); }

    Response post(String path, Object body) throws IOException, InterruptedException {
        String json = body instanceof String s ? s : JSON.writeValueAsString(body);
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** The sandbox record as the daemon shows it. */
    JsonNode sandbox(String id) throws IOException, InterruptedException {
        return get("/v1/sandboxes/" + id).expect(200, "get " + id).body();
    }

    /** A request the daemon dies during: it must end in an I/O error (connection reset or closed), never an answer. */
    IOException postExpectingCrash(String path, Object body) throws InterruptedException {
        try {
            Response answered = post(path, body);
            throw new AssertionError("expected the daemon to crash during POST " + path + ", but it answered " + answered);
        } catch (IOException expected) {
            return expected;
        }
    }

    IOException deleteExpectingCrash(String path) throws InterruptedException {
        try {
            Response answered = delete(path);
            throw new AssertionError("expected the daemon to crash during DELETE " + path + ", but it answered " + answered);
        } catch (IOException expected) {
            return expected;
        }
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Bearer " + token);
    }

    private Response send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> res = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = res.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(res.body());
        return new Response(res.statusCode(), body);
    }
}
