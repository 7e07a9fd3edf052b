package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.json.ApiJson;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotLayout;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SnapshotSpecsTest {
    /** Every field of a spec set, as the README documents it, plus the host ports a network slot writes back. */
    private static final String FULL_SPEC = """
            {"id": "agent-1", "identity": {"name": "agent-1", "namespace": "team-a"}, "vcpus": 2, "memoryMib": 256,
             "kernel": "/srv/guest/vmlinux", "initramfs": "/srv/guest/initramfs.cpio.gz", "cmdline": "console=ttyS0 quiet",
             "rootfs": "/srv/guest/rootfs", "durableDirs": ["data", "db"],
             "systemInfo": {"volumes": [
               {"name": "identity", "sources": [{"actorMetadata": {"items": [{"field": "name", "path": "name"}]}}]},
               {"name": "secrets", "defaultMode": "0440", "sources": [{"hostDirectory": {"path": "/var/run/secrets/app"}}]}]},
             "readiness": {"type": "probe", "port": 1024, "timeoutSeconds": 60}, "memoryRestoreMode": "OnDemand",
             "network": {"egress": {"allow": ["10.1.0.0/16"], "deny": ["198.51.100.0/24"]},
                         "ports": [{"guest": 8080, "host": 18080}]},
             "idle": {"afterSeconds": 600, "action": "suspend"}}""";

    @Test
    void theSpecASuspendWroteIsWhatItsAnnotationParsesTo() throws Exception {
        SandboxSpec spec = ApiJson.mapper().readValue(FULL_SPEC, SandboxSpec.class);
        // the suspend keeps the spec object it wrote; a daemon started later parses the annotation: the two must agree
        assertThat(ApiJson.mapper().readValue(SnapshotSpecs.annotationOf(spec), SandboxSpec.class)).isEqualTo(spec);
    }

    @Test
    void aSpecIsParsedOnceForTheSameManifestAndAgainForAnEditedOne() throws Exception {
        SandboxSpec written = ApiJson.mapper().readValue(FULL_SPEC, SandboxSpec.class);
        SnapshotSpecs specs = new SnapshotSpecs();
        Snapshot committed = snapshot(SnapshotSpecs.annotationOf(written));
        specs.committed(committed, written);
        assertThat(specs.of(committed)).as("the suspend's own spec").isSameAs(written);

        // the file edited on disk: the store hands out another manifest object, whose annotation is read
        Snapshot edited = snapshot(SnapshotSpecs.annotationOf(written).replace("/srv/guest/rootfs", "/"));
        SandboxSpec read = specs.of(edited);
        assertThat(read.rootfs()).isEqualTo("/");
        assertThat(specs.of(edited)).as("parsed once for that manifest").isSameAs(read);

        specs.forget(edited.id());
        assertThat(specs.of(edited)).as("a deleted snapshot's spec is not kept").isNotSameAs(read).isEqualTo(read);
    }

    @Test
    void aSnapshotWithoutAReadableSpecIsRefusedNamingIt() {
        SnapshotSpecs specs = new SnapshotSpecs();
        assertThatThrownBy(() -> specs.of(snapshot(null))).isInstanceOf(SnapshotUnusableException.class)
                .hasMessageContaining("snap-1").hasMessageContaining("has no sandbox spec");
        assertThatThrownBy(() -> specs.of(snapshot("{\"vcpus\": \"many\""))).isInstanceOf(SnapshotUnusableException.class)
                .hasMessageContaining("snap-1").hasMessageContaining("unreadable sandbox spec");
    }

    private static Snapshot snapshot(String annotation) {
        Map<String, String> annotations = annotation == null ? Map.of() : Map.of(SnapshotSpecs.ANNOTATION, annotation);
        Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, "snap-1", Instant.now(),
                new Manifest.SourceSandbox("agent-1", "agent-1", "team-a", "uid-1"), "v54.0.0", new Manifest.VmSizing(2, 256L << 20),
                Map.of(), new Manifest.MemoryRanges("sparse", 0, 0), new Manifest.DurableArchiveInfo("durable.tar", "none", 0, 0),
                List.of(), annotations);
        return new Snapshot("snap-1", new SnapshotLayout(Path.of("/nonexistent/snap-1")), manifest);
    }
}
