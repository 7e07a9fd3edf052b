package dev.ateom.microvm.config;

import dev.ateom.jail.UidRange;
import dev.ateom.store.LeaseMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DaemonConfigLoaderTest {
    @TempDir Path dir;

    @Test
    void defaultsApplyWhenNothingIsGiven() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "");
        DaemonConfig config = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString()), Map.of())
                .load();
        assertThat(config.listenHost()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(8420);
        assertThat(config.stateDir()).isEqualTo(Path.of("/var/lib/ateom"));
        assertThat(config.tokenFile()).isEqualTo(Path.of("/var/lib/ateom/api-token"));
        assertThat(config.syncReconcileInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.imageRoots()).containsExactly(Path.of("/var/lib/ateom-images"));
        assertThat(config.hostDirectoryRoots()).containsExactly(Path.of("/var/lib/kubelet/pods"));
        assertThat(config.virtiofsdAhead()).isZero();
        assertThat(config.virtiofsdAheadRunning()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void allowedRootsAreListsFromAFlagTheEnvironmentOrTheFile() throws IOException {
        Path yaml = Files.writeString(dir.resolve("roots.yaml"), "image-roots: [/srv/images, /opt/guests/]\nhost-directory-roots: \"\"\n");
        DaemonConfig fromFile = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString()), Map.of()).load();
        assertThat(fromFile.imageRoots()).containsExactly(Path.of("/srv/images"), Path.of("/opt/guests"));
        assertThat(fromFile.hostDirectoryRoots()).as("empty allows nothing").isEmpty();
        DaemonConfig fromFlag = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(),
                ConfigOption.IMAGE_ROOTS, "/a,/b/../c, "), Map.of("ATEOM_HOST_DIRECTORY_ROOTS", "/var/lib/kubelet/pods")).load();
        assertThat(fromFlag.imageRoots()).containsExactly(Path.of("/a"), Path.of("/c"));
        assertThat(fromFlag.hostDirectoryRoots()).containsExactly(Path.of("/var/lib/kubelet/pods"));
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(), ConfigOption.IMAGE_ROOTS,
                "/srv,images"), Map.of()).load()).hasMessageContaining("image-roots (from flag --image-roots)").hasMessageContaining("absolute");
    }

    @Test
    void flagBeatsEnvironmentBeatsFileBeatsDefault() throws IOException {
        Path yaml = dir.resolve("ateom.yaml");
        Files.writeString(yaml, "port: 9001\nstate-dir: /srv/file\nrun-dir: /run/file\nlog-level: debug\n");
        DaemonConfig config = new DaemonConfigLoader(
                Map.of(ConfigOption.PORT, "9003"),
                Map.of("ATEOM_CONFIG", yaml.toString(), "ATEOM_PORT", "9002", "ATEOM_STATE_DIR", "/srv/env"))
                .load();
        assertThat(config.port()).isEqualTo(9003);
        assertThat(config.stateDir()).isEqualTo(Path.of("/srv/env"));
        assertThat(config.runDir()).isEqualTo(Path.of("/run/file"));
        assertThat(config.logLevel()).isEqualTo("DEBUG");
        assertThat(config.sandboxesDir()).isEqualTo(Path.of("/srv/env/sandboxes"));
    }

    @Test
    void errorsNameTheOptionAndWhereItCameFrom() throws IOException {
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.PORT, "70000"), Map.of()).load())
                .hasMessageContaining("port (from flag --port)").hasMessageContaining("between 0 and 65535");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.VIRTIOFSD_AHEAD_RUNNING_MS, "-1"), Map.of()).load())
                .hasMessageContaining("virtiofsd-ahead-running-ms (from flag --virtiofsd-ahead-running-ms)")
                .hasMessageContaining("between 0 and 86400000");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(), Map.of("ATEOM_STATE_DIR", "relative/dir")).load())
                .hasMessageContaining("state-dir (from environment ATEOM_STATE_DIR)").hasMessageContaining("absolute");
        Path yaml = dir.resolve("bad.yaml");
        Files.writeString(yaml, "prot: 1\n");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString()), Map.of()).load())
                .hasMessageContaining("unknown option 'prot'");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, dir.resolve("missing.yaml").toString()), Map.of()).load())
                .hasMessageContaining("does not exist");
    }

    @Test
    void withoutASnapshotStoreThereIsNoStoreConfig() throws IOException {
        Path empty = Files.writeString(dir.resolve("none.yaml"), "");
        assertThat(new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString()), Map.of()).load().snapshotStore()).isEmpty();
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.PUSH_ON_SUSPEND, "true"),
                Map.of()).load()).hasMessageContaining("push-on-suspend (from flag --push-on-suspend)").hasMessageContaining("snapshot-store");
    }

    @Test
    void snapshotStoreOptionsAreReadAndCheckedForForm() throws IOException {
        Path yaml = Files.writeString(dir.resolve("store.yaml"), "snapshot-store: s3://fleet/ateom\nsnapshot-store-path-style: true\n");
        RemoteStoreConfig store = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(),
                ConfigOption.SNAPSHOT_STORE_ENDPOINT, "http://127.0.0.1:9000", ConfigOption.HOST_ID, "host-7",
                ConfigOption.SNAPSHOT_STORE_LEASES, "off", ConfigOption.PUSH_ON_SUSPEND, "true"),
                Map.of("ATEOM_SNAPSHOT_STORE_REGION", "eu-west-1")).load().snapshotStore().orElseThrow();
        assertThat(store.settings().location().toString()).isEqualTo("s3://fleet/ateom");
        assertThat(store.settings().endpoint()).hasValueSatisfying(uri -> assertThat(uri.getPort()).isEqualTo(9000));
        assertThat(store.settings().region()).hasValue("eu-west-1");
        assertThat(store.settings().pathStyle()).isTrue();
        assertThat(store.settings().leases()).isEqualTo(LeaseMode.OFF);
        assertThat(store.hostId()).isEqualTo("host-7");
        assertThat(store.pushOnSuspend()).isTrue();
        assertThat(store.cacheBytes()).isEqualTo(4096L << 20);

        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(), ConfigOption.SNAPSHOT_STORE, "http://fleet"),
                Map.of()).load()).hasMessageContaining("snapshot-store (from flag --snapshot-store)");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(),
                ConfigOption.SNAPSHOT_STORE_ENDPOINT, "ftp://store"), Map.of()).load())
                .hasMessageContaining("snapshot-store-endpoint (from flag --snapshot-store-endpoint)");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, yaml.toString(),
                ConfigOption.SNAPSHOT_STORE_LEASES, "maybe"), Map.of()).load())
                .hasMessageContaining("snapshot-store-leases").hasMessageContaining("on or off");
    }

    @Test
    void theJailIsOnByDefaultAndItsOptionsAreChecked() throws IOException {
        Path empty = Files.writeString(dir.resolve("jail.yaml"), "");
        DaemonConfig config = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString()), Map.of()).load();
        assertThat(config.jail().enabled()).isTrue();
        assertThat(config.jail().uidRange()).isEqualTo(UidRange.DEFAULT);
        assertThat(config.jail().cpuQuotaFor(3)).as("vcpus worth by default").isEqualTo(3.0);
        DaemonConfig custom = new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL_CPU_QUOTA, "1.5",
                ConfigOption.JAIL, "off"), Map.of()).load();
        assertThat(custom.jail().enabled()).isFalse();
        assertThat(custom.jail().cpuQuotaFor(3)).isEqualTo(1.5);
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL, "maybe"), Map.of())
                .load()).hasMessageContaining("jail (from flag --jail)").hasMessageContaining("on or off");
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL_CPU_QUOTA, "lots"),
                Map.of()).load()).hasMessageContaining("jail-cpu-quota").hasMessageContaining("vcpus or a number");
    }

    @Test
    void aUidRangeOverARealUserIsRefused() throws IOException {
        Path empty = Files.writeString(dir.resolve("jail.yaml"), "");
        // root is in every /etc/passwd: a range from 0 is refused before that, one over uid 0's group too
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL_UID_RANGE, "0-10"),
                Map.of()).load()).hasMessageContaining("jail-uid-range (from flag --jail-uid-range)").hasMessageContaining("above 0");
        String rootLine = Files.readAllLines(Path.of("/etc/passwd")).stream().filter(l -> !l.startsWith("root:")).findFirst().orElseThrow();
        int uid = Integer.parseInt(rootLine.split(":")[2]);
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL_UID_RANGE,
                uid + "-" + (uid + 1)), Map.of()).load()).hasMessageContaining("jail-uid-range").hasMessageContaining("overlaps a real id")
                .hasMessageContaining(rootLine.split(":")[0]);
        assertThatThrownBy(() -> new DaemonConfigLoader(Map.of(ConfigOption.CONFIG, empty.toString(), ConfigOption.JAIL_UID_RANGE, "9-1"),
                Map.of()).load()).hasMessageContaining("before it starts");
    }
}
