package dev.ateom.chv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ateom.network.os.NetNamespaces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A NIC backed by a TAP descriptor, the way CHV v54 takes it: the descriptor travels with {@code vm.add-net}
 * (SCM_RIGHTS) between create and boot, the snapshot's config.json marks the device as descriptor-backed
 * ({@code "fds":[-1]}), and a restore must bring a new descriptor for it in {@code net_fds} or be refused
 * ({@code RestoreMissingRequiredNetId}). Real TAPs; the CHV under test (stand-in {@code none} backend unless
 * ATEOM_CLOUD_HYPERVISOR names a real one).
 */
class NetDescriptorsTest {
    private static final String MAC = "02:00:a9:fe:00:15";

    @TempDir
    Path dir;

    private final List<AutoCloseable> started = new ArrayList<>();
    private final String prefix = "tc" + Long.toHexString(System.nanoTime() & 0xffffff);

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable each : started.reversed()) {
            each.close();
        }
        assertThat(NetNamespaces.list(prefix)).as("no namespace (and so no TAP) left").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ateom.chv.ChvRelease#underTest")
    void aTapDescriptorGoesWithAddNetAndMustComeBackWithRestore(ChvRelease release) throws Exception {
        TestTaps taps = new TestTaps(prefix + "-taps");
        started.add(taps);
        Path snap = Files.createDirectory(dir.resolve("snap"));
        try (SandboxShares shares = SandboxShares.start(dir, "g1")) {
            ChvProcess source = ChvUnderTest.start(dir, "src", release);
            started.add(source::kill);
            ChvClient chv = source.client();
            chv.create(shares.config("g1"));
            assertThatThrownBy(() -> chv.addNet(new NetConfig(null, null, null, MAC, null, 4, null, null, null, null, "net0", null), List.of(taps.open())))
                    .as("checked before CHV: two queues per descriptor").isInstanceOf(ChvConfigRejectedException.class);
            HttpResponse mismatch = new RawChv(source.launch().apiSocket()).put("vm.add-net", "{\"mac\":\"" + MAC + "\",\"num_queues\":4}",
                    List.of(taps.open()));
            assertThat(mismatch.status()).isEqualTo(400);
            assertThat(chainOf(mismatch)).endsWith("Failed to validate config", "Number of queues to virtio_net does not match the number of input FDs");

            assertThat(chv.addNet(NetConfig.onTapDescriptor(null, MAC), List.of(taps.open()))).as("cold plug: 204").isEmpty();
            NetConfig shown = chv.info().config().net().getFirst();
            assertThat(shown.fds()).as("descriptors show as -1, one each").containsExactly(-1);
            assertThat(shown.mac()).isEqualTo(MAC);
            chv.boot();
            assertThat(chv.info().config().net().getFirst().id()).as("CHV names the device at boot").isEqualTo("_net0");
            chv.pause();
            chv.snapshot(snap);
            chv.shutdown();
        }
        JsonNode saved = ChvClient.JSON.readTree(snap.resolve("config.json").toFile()).path("net").get(0);
        assertThat(saved.path("id").asText()).isEqualTo("_net0");
        assertThat(saved.path("fds").toString()).isEqualTo("[-1]");

        try (SandboxShares shares = SandboxShares.start(dir, "g2"); Pipes pipes = new Pipes(1)) {
            Files.writeString(snap.resolve("config.json"), Files.readString(snap.resolve("config.json")).replace(dir + "/g1-", dir + "/g2-"));
            ChvProcess target = ChvUnderTest.start(dir, "dst", release);
            started.add(target::kill);
            ChvBehaviour behaviour = release.behaviourOf(target.client());
            RawChv raw = new RawChv(target.launch().apiSocket());
            String source = "\"source_url\":\"file://" + snap + "\"";

            HttpResponse missing = raw.put("vm.restore", "{" + source + "}");
            assertThat(missing.status()).as(missing.bodyText()).isEqualTo(behaviour.restoreMissingNetStatus());
            assertThat(chainOf(missing)).containsExactly("Error from API", "The VM could not be restored", "Failed to validate config",
                    "Net id _net0 is associated with FDs and is required");
            assertThat(raw.get("vm.info").status()).as("nothing was created").isEqualTo(404);

            HttpResponse miscounted = raw.put("vm.restore", "{" + source + ",\"net_fds\":[{\"id\":\"_net0\",\"num_fds\":2}]}", List.of(taps.open()));
            assertThat(miscounted.status()).isEqualTo(400);
            assertThat(chainOf(miscounted)).as("descriptors that do not add up: the HTTP layer's bare 400").containsExactly("Bad Request");

            HttpResponse notATap = raw.put("vm.restore", "{" + source + ",\"net_fds\":[{\"id\":\"_net0\",\"num_fds\":1}]}", pipes.readEnds);
            assertThat(notATap.status()).isEqualTo(500);
            assertThat(chainOf(notATap)).contains("Cannot create virtio-net device");

            HttpResponse twoForOne = raw.put("vm.restore", "{" + source + ",\"net_fds\":[{\"id\":\"_net0\",\"num_fds\":2}]}",
                    List.of(taps.open(), taps.open()));
            assertThat(chainOf(twoForOne)).last().isEqualTo("Number of Net FDs passed for '_net0' during Restore: 2. Expected: 1");

            RestoreConfig restore = RestoreConfig.fromDirectory(snap, MemoryRestoreMode.Copy);
            assertThatThrownBy(() -> target.client().restore(restore, List.of())).as("the client says so before CHV does")
                    .isInstanceOf(ChvConfigRejectedException.class).hasMessageContaining("RestoreMissingRequiredNetId");
            // an entry naming no device is ignored, like CHV does ("Ignoring unused 'net_fds'")
            target.client().restore(restore.withNetFds(List.of(new RestoredNetConfig("_net0", 1), new RestoredNetConfig("nope", 0))),
                    List.of(taps.open()));
            assertThat(target.client().info().state()).isEqualTo(VmState.Paused);
            assertThat(target.client().info().config().net().getFirst().fds()).containsExactly(-1);
        }
    }

    private static List<String> chainOf(HttpResponse response) {
        return ChvClient.errorChain(response);
    }
}
