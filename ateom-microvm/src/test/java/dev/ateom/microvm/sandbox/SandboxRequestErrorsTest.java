package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.json.ApiJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.http.HttpRequest;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every 4xx of the sandbox API: each bad spec field on its own, auth, size, and nothing created by a refused request. */
class SandboxRequestErrorsTest {
    @RegisterExtension
    static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.MAX_REQUEST_BYTES, "8192"));

    static Stream<Arguments> badSpecs() {
        return Stream.of(
                bad("id", s -> s.put("id", "Not_A_Label")),
                bad("identity", s -> s.remove("identity")),
                bad("identity.name", s -> ((ObjectNode) s.get("identity")).put("name", "")),
                bad("identity.namespace", s -> ((ObjectNode) s.get("identity")).put("namespace", "UPPER")),
                bad("vcpus", s -> s.put("vcpus", 0)),
                bad("vcpus", s -> s.remove("vcpus")),
                bad("memoryMib", s -> s.put("memoryMib", 1)),
                bad("kernel", s -> s.put("kernel", "/no/such/kernel")),
                bad("kernel", s -> s.put("kernel", "relative/kernel")),
                bad("initramfs", s -> s.put("initramfs", "/no/such/initramfs")),
                bad("rootfs", s -> s.put("rootfs", "/no/such/dir")),
                bad("cmdline", s -> s.put("cmdline", "a\nb")),
                bad("durableDirs[0]", s -> s.putArray("durableDirs").add("../escape")),
                bad("durableDirs[1]", s -> s.putArray("durableDirs").add("a").add("a")),
                bad("readiness.type", s -> s.putObject("readiness").put("type", "tcp")),
                bad("readiness.port", s -> s.putObject("readiness").put("type", "probe")),
                bad("memoryRestoreMode", s -> s.put("memoryRestoreMode", "Lazy")),
                bad("systemInfo.volumes[0].name", s -> ((ObjectNode) s.get("systemInfo").get("volumes").get(0)).put("name", "..")),
                bad("systemInfo.volumes[0].sources[0].actorMetadata.items[0].path",
                        s -> ((ObjectNode) s.at("/systemInfo/volumes/0/sources/0/actorMetadata/items/0")).put("path", "/abs")),
                bad("systemInfo.volumes[0].sources[0].actorMetadata.items[0].field",
                        s -> ((ObjectNode) s.at("/systemInfo/volumes/0/sources/0/actorMetadata/items/0")).put("field", "email")),
                bad("colour", s -> s.put("colour", "blue")),
                bad("identity.nickname", s -> ((ObjectNode) s.get("identity")).put("nickname", "x")),
                bad("kernel", s -> s.put("fromSnapshot", "some-snapshot")),
                // network fields are checked whether or not this daemon has networking on
                bad("network.egress.allow[0]", s -> s.putObject("network").putObject("egress").putArray("allow").add("10.0.0.0/33")),
                bad("network.egress.deny[1]", s -> s.putObject("network").putObject("egress").putArray("deny").add("10.0.0.0/8").add("nope")),
                bad("network.ports[0].guest", s -> s.putObject("network").putArray("ports").addObject().put("guest", 70_000)),
                bad("network.ports[0].guest", s -> s.putObject("network").putArray("ports").addObject().put("host", 8080)),
                bad("network.ports[0].host", s -> s.putObject("network").putArray("ports").addObject().put("guest", 80).put("host", -1)),
                bad("network.ports[1].guest", s -> s.putObject("network").putArray("ports").add(port(80)).add(port(80))),
                bad("network.ports", s -> {
                    var ports = s.putObject("network").putArray("ports");
                    for (int p = 1; p <= 17; p++) ports.add(port(p));
                }),
                bad("network.colour", s -> s.putObject("network").put("colour", "blue")),
                // idle timeouts: this daemon's --idle-minimum-seconds is the default, 60
                bad("idle.action", s -> s.putObject("idle").put("afterSeconds", 600).put("action", "hibernate")),
                bad("idle.action", s -> s.putObject("idle").put("afterSeconds", 600)),
                bad("idle.afterSeconds", s -> s.putObject("idle").put("afterSeconds", 59).put("action", "suspend")),
                bad("idle.afterSeconds", s -> s.putObject("idle").put("afterSeconds", -600).put("action", "delete")),
                bad("idle.afterSeconds", s -> s.putObject("idle").put("afterSeconds", 0).put("action", "suspend")),
                bad("idle.afterSeconds", s -> s.putObject("idle").put("action", "suspend")),
                bad("idle.afterSeconds", s -> s.putObject("idle").put("afterSeconds", "600").put("action", "suspend")),
                bad("idle.colour", s -> s.putObject("idle").put("afterSeconds", 600).put("action", "suspend").put("colour", "blue")),
                // issue 12, item 8: no guessing at types
                bad("vcpus", s -> s.put("vcpus", "2")),
                bad("vcpus", s -> s.put("vcpus", 1.9)),
                bad("memoryMib", s -> s.put("memoryMib", true)),
                bad("cmdline", s -> s.put("cmdline", 42)),
                bad("readiness.port", s -> s.putObject("readiness").put("type", "probe").put("port", "1024")),
                bad("kernel", s -> s.put("kernel", "/etc")),
                bad("kernel", s -> s.put("kernel", "/etc/shadow")),
                bad("kernel", s -> s.put("kernel", "/no/such\u0000kernel")),
                bad("rootfs", s -> s.put("rootfs", "/")));
    }

    private static ObjectNode port(int guest) { return ApiJson.mapper().createObjectNode().put("guest", guest); }

    private static Arguments bad(String field, Consumer<ObjectNode> mutation) { return Arguments.of(field, mutation); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSpecs")
    void badFieldIsNamedInA400(String field, Consumer<ObjectNode> mutation) throws Exception {
        ObjectNode spec = daemon.spec("refused", "refused");
        mutation.accept(spec);
        var res = daemon.post("/v1/sandboxes", spec);
        assertThat(res.status()).as(res.body().toString()).isEqualTo(400);
        assertThat(res.contentType()).isEqualTo("application/problem+json");
        assertThat(res.body().path("errors").findValuesAsText("field")).as(res.body().toString()).contains(field);
        assertThat(res.body().path("detail").asText()).isNotBlank();
        assertThat(daemon.get("/v1/sandboxes/refused").status()).as("nothing created").isEqualTo(404);
        assertThat(daemon.stateDir().resolve("sandboxes/refused")).doesNotExist();
    }

    @Test
    void malformedJsonIs400() throws Exception {
        var res = daemon.post("/v1/sandboxes", "{\"identity\": ");
        assertThat(res.status()).isEqualTo(400);
        assertThat(res.body().path("detail").asText()).contains("not valid JSON");
    }

    @Test
    void aKeyGivenTwiceIsRefusedNamingIt() throws Exception {
        String spec = daemon.spec("twice", "twice").toString();
        var top = daemon.post("/v1/sandboxes", spec.replaceFirst("\\{", "{\"vcpus\": 4, "));
        assertThat(top.status()).as(top.body().toString()).isEqualTo(400);
        assertThat(top.body().path("errors").findValuesAsText("field")).containsExactly("vcpus");
        var nested = daemon.post("/v1/sandboxes", spec.replace("\"namespace\":\"tests\"", "\"namespace\":\"tests\",\"name\":\"other\""));
        assertThat(nested.status()).as(nested.body().toString()).isEqualTo(400);
        assertThat(nested.body().path("errors").findValuesAsText("field")).containsExactly("identity.name");
        assertThat(daemon.get("/v1/sandboxes/twice").status()).isEqualTo(404);
    }

    @Test
    void theBearerSchemeIsCaseInsensitive() throws Exception {
        for (String scheme : new String[] {"bearer ", "BEARER ", "Bearer "}) {
            var res = daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/sandboxes"))
                    .header("Authorization", scheme + daemon.token()).GET(), false);
            assertThat(res.status()).as(scheme).isEqualTo(200);
        }
        var other = daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/sandboxes"))
                .header("Authorization", "Basic " + daemon.token()).GET(), false);
        assertThat(other.status()).isEqualTo(401);
    }

    @Test
    void oversizedBodyIs413() throws Exception {
        ObjectNode spec = daemon.spec("big", "big");
        spec.put("cmdline", "x".repeat(10_000));
        var res = daemon.post("/v1/sandboxes", spec);
        assertThat(res.status()).isEqualTo(413);
        assertThat(res.contentType()).isEqualTo("application/problem+json");
    }

    @Test
    void missingOrWrongTokenIs401() throws Exception {
        var missing = daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/sandboxes")).GET(), false);
        assertThat(missing.status()).isEqualTo(401);
        var wrong = daemon.send(HttpRequest.newBuilder(daemon.uri("/v1/sandboxes")).header("Authorization", "Bearer nope").GET(), false);
        assertThat(wrong.status()).isEqualTo(401);
        JsonNode body = wrong.body();
        assertThat(body.path("type").asText()).endsWith("/unauthorized");
    }

    @Test
    void badQueryFlagIs400() throws Exception {
        assertThat(daemon.get("/v1/snapshots/x?verify=maybe").status()).isEqualTo(400);
    }

    static {
        ApiJson.mapper();
    }
}
