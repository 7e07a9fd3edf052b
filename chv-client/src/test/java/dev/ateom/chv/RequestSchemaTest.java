package dev.ateom.chv;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Every request body the client can emit validates against CHV's OpenAPI spec (the copy the stand-in ships),
 * checked by an independent validator (networknt, OpenAPI 3.0 dialect) on the exact bytes the client sends; and
 * the answers of the CHV under test validate against the response schemas.
 */
class RequestSchemaTest {
    private static final String SPEC = "/dev/ateom/fixtures/chv/cloud-hypervisor.openapi.yaml";
    private static JsonNode spec;

    @BeforeAll
    static void loadSpec() throws Exception {
        try (InputStream in = RequestSchemaTest.class.getResourceAsStream(SPEC)) {
            assertThat(in).as("spec on the test classpath (fixtures jar)").isNotNull();
            spec = YAMLMapper.builder().build().readTree(in);
        }
    }

    private static Schema schema(String name) {
        ObjectNode root = YAMLMapper.builder().build().createObjectNode();
        root.put("$ref", "#/components/schemas/" + name);
        root.set("components", spec.get("components"));
        return SchemaRegistry.withDefaultDialect(Dialects.getOpenApi30()).getSchema(root);
    }

    private static List<Error> validate(String schemaName, Object request) {
        String json = new String(ChvClient.body(request), StandardCharsets.UTF_8);
        JsonNode node = YAMLMapper.builder().build().readTree(json);
        return schema(schemaName).validate(node);
    }

    static Stream<Arguments> requests() {
        VmConfig sandbox = new VmConfig(CpusConfig.of(2), MemoryConfig.shared(512L << 20),
                PayloadConfig.kernel("/k/vmlinuz", "/k/initrd.img", "console=ttyS0 ate.rootfs=ateRootfs"),
                List.of(FsConfig.of("ateRootfs", "/run/ateom/a/rootfs.sock"), FsConfig.of("ateDurable", "/run/ateom/a/durable.sock"),
                        FsConfig.of("ateSystemInfo", "/run/ateom/a/sysinfo.sock")),
                VsockConfig.of(3, "/run/ateom/a/vsock.sock"), ConsoleConfig.toFile("/run/ateom/a/console.log"), ConsoleConfig.off(),
                RngConfig.urandom(), new PlatformConfig(1, "5f3c1d2e-0000-4000-8000-000000000001", "sbx-1", List.of("ateom:sandbox=a")),
                List.of(new NetConfig("tap0", "192.168.249.1", "255.255.255.0", "12:34:56:78:9a:bc", null, 2, 256, null, null, null, "net0", null)));
        VmConfig minimal = new VmConfig(CpusConfig.of(1), new MemoryConfig(256L << 20, true, false, false, true),
                new PayloadConfig(null, null, null, "/fw/hypervisor-fw"), null, null, new ConsoleConfig(ConsoleMode.Socket, null, "/run/c.sock"),
                new ConsoleConfig(ConsoleMode.Null, null, null), null, null, null);
        return Stream.of(
                Arguments.of("vm.create sandbox", "VmConfig", sandbox),
                Arguments.of("vm.create minimal firmware", "VmConfig", minimal),
                Arguments.of("vm.snapshot", "VmSnapshotConfig", VmSnapshotConfig.toDirectory(Path.of("/var/lib/ateom/snapshots/s1/chv"))),
                Arguments.of("vm.restore Copy", "RestoreConfig", RestoreConfig.fromDirectory(Path.of("/s/chv"), MemoryRestoreMode.Copy)),
                Arguments.of("vm.restore OnDemand", "RestoreConfig", RestoreConfig.fromDirectory(Path.of("/s/chv"), MemoryRestoreMode.OnDemand)),
                Arguments.of("vm.restore all options + net_fds", "RestoreConfig", new RestoreConfig("file:///s/chv", true,
                        MemoryRestoreMode.OnDemand, true, List.of(new RestoredNetConfig("net0", 2)))),
                Arguments.of("vm.add-net tap", "NetConfig", new NetConfig("tap1", null, null, null, null, null, null, null, null, null, "net1", null)),
                Arguments.of("vm.add-net on a TAP descriptor", "NetConfig", NetConfig.onTapDescriptor("net0", "02:00:a9:fe:00:15")),
                Arguments.of("vm.add-net vhost-user", "NetConfig", new NetConfig(null, null, null, null, null, 2, 256, true, "/run/n.sock", "Client", null, null)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void clientRequestsValidateAgainstTheSpec(String what, String schemaName, Object request) {
        assertThat(validate(schemaName, request)).as(what + ": " + new String(ChvClient.body(request))).isEmpty();
    }

    @Test
    void requestsUseSnakeCaseAndOmitNulls() throws Exception {
        var json = ChvClient.JSON.readTree(ChvClient.body(new RestoreConfig("file:///s", null, MemoryRestoreMode.OnDemand, null,
                List.of(new RestoredNetConfig("net0", 2)))));
        assertThat(json.toString()).isEqualTo("{\"source_url\":\"file:///s\",\"memory_restore_mode\":\"OnDemand\",\"net_fds\":[{\"id\":\"net0\",\"num_fds\":2}]}");
        var fs = ChvClient.JSON.readTree(ChvClient.body(FsConfig.of("t", "/s.sock")));
        assertThat(fs.toString()).isEqualTo("{\"tag\":\"t\",\"socket\":\"/s.sock\",\"num_queues\":1,\"queue_size\":1024}");
        assertThat(ChvClient.JSON.readTree(ChvClient.body(CpusConfig.of(2))).toString()).isEqualTo("{\"boot_vcpus\":2,\"max_vcpus\":2}");
    }

    @Test
    void standInAnswersValidateAgainstTheSpecToo(@TempDir Path dir) throws Exception {
        try (ChvProcess chv = ChvUnderTest.start(dir, "schema"); SandboxShares shares = SandboxShares.start(dir, "g1")) {
            RawChv raw = new RawChv(chv.launch().apiSocket());
            assertThat(schema("VmmPingResponse").validate(tree(raw.get("vmm.ping")))).isEmpty();
            chv.client().create(shares.config("g1"));
            assertThat(schema("VmInfo").validate(tree(raw.get("vm.info")))).as("vm.info Created").isEmpty();
            chv.client().boot();
            assertThat(schema("VmInfo").validate(tree(raw.get("vm.info")))).as("vm.info Running with device_tree").isEmpty();
        }
    }

    private static JsonNode tree(HttpResponse response) {
        assertThat(response.status()).isEqualTo(200);
        return YAMLMapper.builder().build().readTree(response.bodyText());
    }

    @Test
    void theValidatorCatchesWhatTheSpecForbids() {
        assertThat(validate("FsConfig", Map.of("tag", "t"))).as("socket, num_queues, queue_size are required").hasSize(3);
        assertThat(validate("VsockConfig", VsockConfig.of(2, "/v.sock"))).as("cid minimum 3").isNotEmpty();
        assertThat(validate("ConsoleConfig", Map.of("mode", "Bogus"))).as("mode enum").isNotEmpty();
        assertThat(validate("VmConfig", Map.of("cpus", Map.of("boot_vcpus", 1)))).as("payload and cpus.max_vcpus").hasSize(2);
    }
}
