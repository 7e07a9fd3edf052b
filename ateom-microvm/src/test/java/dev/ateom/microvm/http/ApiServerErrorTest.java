package dev.ateom.microvm.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.microvm.json.ApiJson;
import io.helidon.webserver.http.HttpService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** What escapes a handler, an exception or an Error, is a 500 problem document naming it, never Helidon's plain text. */
class ApiServerErrorTest {

    @TempDir
    Path dir;

    @Test
    void anExceptionAndAnErrorAreBothProblemDocuments() throws Exception {
        ApiToken token = ApiToken.loadOrCreate(dir.resolve("api-token"));
        HttpService failing = rules -> rules
                .get("/exception", (req, res) -> { throw new IllegalStateException("broken state"); })
                // what a stale class on the classpath throws: an Error, not an Exception
                .get("/error", (req, res) -> { throw new NoSuchMethodError("'boolean Stale.method()'"); });
        try (ApiServer server = new ApiServer("127.0.0.1", 0, 4096, token, List.of(failing))) {
            for (String path : List.of("/exception", "/error")) {
                HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + server.port() + path))
                        .header("Authorization", "Bearer " + Files.readString(token.file()).strip()).GET().build(), HttpResponse.BodyHandlers.ofString());

                assertThat(res.statusCode()).as(path).isEqualTo(500);
                assertThat(res.headers().firstValue("content-type")).as(path).hasValue(Problem.MEDIA_TYPE);
                JsonNode problem = ApiJson.mapper().readTree(res.body());
                assertThat(problem.path("type").asText()).as(path).endsWith("/internal-error");
                assertThat(problem.path("detail").asText()).as(path)
                        .isIn("IllegalStateException: broken state", "NoSuchMethodError: 'boolean Stale.method()'");
            }
        }
    }
}
