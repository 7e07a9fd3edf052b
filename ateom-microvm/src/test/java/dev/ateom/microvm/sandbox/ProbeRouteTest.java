package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /v1/sandboxes/{id}/probe} against an in-process daemon (CHV stand-in, {@code none} backend: its vsock
 * socket refuses every CONNECT, as CHV does with nothing listening in the guest). The answers of a real guest are
 * tested in RealGuestCheckpointTest and the tour (e2e TryScriptTest).
 */
class ProbeRouteTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of());

    @BeforeAll
    static void start() throws Exception {
        daemon.createOk(daemon.spec("probe-1", "probe-1"));
    }

    @Test
    void aCommandThatIsNotOneBoundedLineIsRefusedNamingTheField() throws Exception {
        for (String body : new String[] {"{}", "{\"command\": \"\"}", "{\"command\": \"ping\\nwhoami\"}",
                "{\"command\": \"cat /x\\u0000y\"}", "{\"command\": \"ping\\r\"}",
                "{\"command\": \"" + "x".repeat(ProbeRequest.MAX_COMMAND_LENGTH + 1) + "\"}"}) {
            var res = daemon.post("/v1/sandboxes/probe-1/probe", body);
            assertThat(res.status()).as(body.length() > 80 ? "a long command" : body).isEqualTo(400);
            assertThat(res.contentType()).isEqualTo("application/problem+json");
            assertThat(fields(res.body())).contains("command");
        }
        var res = daemon.post("/v1/sandboxes/probe-1/probe", "{\"command\": \"ping\", \"timeoutSeconds\": 0}");
        assertThat(res.status()).isEqualTo(400);
        assertThat(fields(res.body())).containsExactly("timeoutSeconds");
    }

    @Test
    void aGuestWithNothingListeningIsABadGatewayNamingTheProbe() throws Exception {
        var res = daemon.post("/v1/sandboxes/probe-1/probe", "{\"command\": \"whoami\", \"timeoutSeconds\": 2}");
        assertThat(res.status()).as(res.body().toString()).isEqualTo(502);
        assertThat(res.body().path("type").asText()).endsWith("guest-probe-unreachable");
        assertThat(res.body().path("sandboxId").asText()).isEqualTo("probe-1");
        assertThat(res.body().path("detail").asText()).contains("refused");
    }

    @Test
    void onlyARunningSandboxCanBeProbed() throws Exception {
        assertThat(daemon.post("/v1/sandboxes/nobody/probe", "{\"command\": \"ping\"}").status()).isEqualTo(404);
        daemon.createOk(daemon.spec("probe-2", "probe-2"));
        assertThat(daemon.post("/v1/sandboxes/probe-2/suspend", "{}").status()).isEqualTo(200);
        var res = daemon.post("/v1/sandboxes/probe-2/probe", "{\"command\": \"ping\"}");
        assertThat(res.status()).isEqualTo(409);
        assertThat(res.body().path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(daemon.delete("/v1/sandboxes/probe-2?deleteSnapshots=true").status()).isEqualTo(204);
    }

    private static List<String> fields(JsonNode problem) { return problem.path("errors").findValuesAsText("field"); }
}
