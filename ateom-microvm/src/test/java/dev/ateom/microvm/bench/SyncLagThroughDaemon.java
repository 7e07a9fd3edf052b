package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.systeminfo.KubeletStyleSource;
import dev.ateom.microvm.systeminfo.SyncLag;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * System-info sync lag through a running daemon: per file count one sandbox whose {@code lag} volume syncs a
 * kubelet-style host directory (under the daemon's {@code --host-directory-roots}); each update of the directory is
 * timed until the daemon has it in the sandbox's system-info dir, the directory virtio-fs serves the guest.
 */
final class SyncLagThroughDaemon {
    private SyncLagThroughDaemon() {
    }

    /** @param hostDirectories the daemon's {@code --host-directory-roots} */
    static SyncLag.Result measure(ExternalDaemon daemon, BenchGuest guest, Path hostDirectories, int updates, int... fileCounts)
            throws Exception {
        List<SyncLag.Row> rows = new ArrayList<>();
        for (int files : fileCounts) {
            String id = "lag-" + files;
            KubeletStyleSource source = new KubeletStyleSource(hostDirectories.resolve(id));
            source.update(SyncLag.payload(files, 0));
            ObjectNode spec = (ObjectNode) ApiJson.mapper().readTree(guest.specFor(id));
            ObjectNode volume = ((ArrayNode) spec.at("/systemInfo/volumes")).addObject().put("name", "lag");
            volume.putArray("sources").addObject().putObject("hostDirectory").put("path", source.dir().toString());
            daemon.post("/v1/sandboxes", spec.toString()).expect(201);
            Path volumeDir = daemon.stateDir().resolve("sandboxes").resolve(id).resolve("system-info/lag");
            awaitFile(volumeDir.resolve("f0"));
            double[] lags = SyncLag.lags(source, volumeDir, files, updates);
            Arrays.sort(lags);
            rows.add(new SyncLag.Row(files, lags));
            daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").expect(204);
        }
        return new SyncLag.Result("a running sandbox's system-info dir (" + guest.backend() + " backend, through the daemon)",
                updates, rows);
    }

    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) throw new IllegalStateException(file + " did not appear within 30 s");
            Thread.sleep(5);
        }
    }
}
