package dev.ateom.chv;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Raw HTTP against a CHV API socket, with assertions on CHV's wire format. */
final class RawChv {
    private final UnixHttpTransport transport;

    RawChv(Path apiSocket) {
        this.transport = new UnixHttpTransport(apiSocket);
    }

    HttpResponse get(String endpoint) {
        return transport.exchange("GET", "/api/v1/" + endpoint, null, List.of(), Duration.ofSeconds(90));
    }

    HttpResponse put(String endpoint) {
        return transport.exchange("PUT", "/api/v1/" + endpoint, null, List.of(), Duration.ofSeconds(90));
    }

    HttpResponse put(String endpoint, String body) {
        return put(endpoint, body, List.of());
    }

    HttpResponse put(String endpoint, String body, List<Integer> fds) {
        return transport.exchange("PUT", "/api/v1/" + endpoint, body.getBytes(StandardCharsets.UTF_8), fds, Duration.ofSeconds(90));
    }

    JsonNode info() throws IOException {
        HttpResponse response = get("vm.info");
        assertThat(response.status()).as("vm.info: %s", response.bodyText()).isEqualTo(200);
        return ChvClient.JSON.readTree(response.body());
    }

    /** A 204 exactly as CHV sends it: no Content-Type, no Content-Length, no body. */
    static void assertNoContent(String row, HttpResponse response) {
        assertThat(response.status()).as("%s: status (body %s)", row, response.bodyText()).isEqualTo(204);
        assertThat(response.statusLine()).as(row).isEqualTo("HTTP/1.1 204 ");
        assertThat(response.headers()).as(row).containsEntry("server", "Cloud Hypervisor API")
                .containsEntry("connection", "keep-alive").doesNotContainKeys("content-type", "content-length");
    }

    /** An error exactly as CHV sends it: status line without reason phrase, JSON array body equal to {@code chain}. */
    static void assertError(String row, HttpResponse response, int status, String... chain) throws IOException {
        assertThat(response.status()).as("%s: status (body %s)", row, response.bodyText()).isEqualTo(status);
        assertThat(response.statusLine()).as(row).isEqualTo("HTTP/1.1 " + status + " ");
        assertThat(response.headers()).as(row).containsEntry("server", "Cloud Hypervisor API")
                .containsEntry("connection", "keep-alive").containsEntry("content-type", "application/json")
                .containsEntry("content-length", String.valueOf(response.body().length));
        List<String> actual = ChvClient.JSON.readValue(response.body(), new TypeReference<List<String>>() { });
        assertThat(actual).as(row).containsExactly(chain);
    }

    /** Like {@link #assertError} but the last entry only has to start with {@code lastPrefix} (serde positions, paths). */
    static void assertErrorPrefix(String row, HttpResponse response, int status, List<String> chain, String lastPrefix) throws IOException {
        assertThat(response.status()).as("%s: status (body %s)", row, response.bodyText()).isEqualTo(status);
        List<String> actual = ChvClient.JSON.readValue(response.body(), new TypeReference<List<String>>() { });
        assertThat(actual.subList(0, actual.size() - 1)).as(row).containsExactlyElementsOf(chain);
        assertThat(actual.getLast()).as(row).startsWith(lastPrefix);
    }
}
