package dev.ateom.microvm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;
import dev.ateom.microvm.sandbox.TestTools;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The daemon's memory under churn ({@code BENCH=soak scripts/bench.sh}): {@code bin/ateom daemon} as shipped, the
 * stand-in's {@code none} backend, {@code -Dsoak.parallel} workers (2) each running {@code -Dsoak.rounds} (300) rounds
 * of create, suspend, resume, checkpoint, clone of the checkpoint, suspend of the clone, and both deleted with their
 * snapshots. Every {@code -Dsoak.every} rounds (25) it prints the daemon's RSS, its heap after a full collection
 * ({@code jcmd GC.run}, then the heap's used bytes), its committed heap, descriptors and threads; at the end the
 * table's last RSS against the one after the first 50 rounds (the goal: within 20 %). {@code -Dsoak.javaOpts} adds
 * JVM options (ATEOM_JAVA_OPTS), e.g. {@code -XX:NativeMemoryTracking=summary}, whose summary is then printed at the
 * start and end. Asserts nothing about the figures.
 */
@Tag("benchmark")
class SoakBenchmark {
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
    private static final Pattern HEAP_TOTAL = Pattern.compile("total (\\d+)K");

    @TempDir Path work;
    private final StringBuilder table = new StringBuilder();

    @Test
    void churn() throws Exception {
        int rounds = Integer.getInteger("soak.rounds", 300);
        int parallel = Integer.getInteger("soak.parallel", 2);
        int every = Integer.getInteger("soak.every", 25);
        String javaOpts = System.getProperty("soak.javaOpts", "");
        boolean nmt = javaOpts.contains("NativeMemoryTracking");
        BenchGuest guest = BenchGuest.prepare(work, "none", Duration.ofSeconds(30));
        Map<String, String> environment = javaOpts.isBlank() ? Map.of() : Map.of("ATEOM_JAVA_OPTS", javaOpts);
        try (ExternalDaemon daemon = new ExternalDaemon(work, guest.hypervisor(), guest.imageRoots(), List.of(), environment)) {
            print(String.format("soak: %d rounds x %d workers (create, suspend, resume, checkpoint, clone, suspend, 2 deletes), none backend%s%n",
                    rounds, parallel, javaOpts.isBlank() ? "" : ", ATEOM_JAVA_OPTS=" + javaOpts));
            print("| rounds | RSS MiB | heap after GC MiB | heap committed MiB | fds | threads | s |\n");
            print("|---:|---:|---:|---:|---:|---:|---:|\n");
            if (nmt) jcmd(daemon.pid(), "VM.native_memory", "baseline");
            Sample first = sample(daemon, 0, 0);
            Sample afterWarmup = null;
            Sample last = first;
            long t0 = System.nanoTime();
            for (int done = 0; done < rounds; done += every) {
                int batch = Math.min(every, rounds - done);
                int from = done;
                try (ExecutorService workers = Executors.newFixedThreadPool(parallel)) {
                    List<Future<?>> running = new ArrayList<>();
                    for (int w = 0; w < parallel; w++) {
                        String worker = "w" + w;
                        running.add(workers.submit(() -> {
                            for (int r = from; r < from + batch; r++) round(daemon, guest, worker + "-" + r);
                            return null;
                        }));
                    }
                    for (Future<?> f : running) f.get();
                }
                last = sample(daemon, done + batch, (System.nanoTime() - t0) / 1e9);
                if (afterWarmup == null && done + batch >= 50) afterWarmup = last;
            }
            if (afterWarmup != null) {
                print(String.format("%nRSS after %d rounds: %.0f MiB; after %d: %.0f MiB (%.2fx; goal: within 20 %%)%n",
                        afterWarmup.rounds(), afterWarmup.rssMib(), last.rounds(), last.rssMib(), last.rssMib() / afterWarmup.rssMib()));
            }
            if (nmt) System.out.println(jcmd(daemon.pid(), "VM.native_memory", "summary.diff"));
        }
        Path output = Files.createDirectories(Path.of(System.getProperty("bench.output", TestTools.repoRoot().resolve("bench-results").toString())));
        Files.writeString(output.resolve("soak.md"), table);
        System.out.println("written: " + output.resolve("soak.md"));
    }

    /** A line of the table: printed as it is measured, and kept for bench-results/soak.md. */
    private void print(String line) {
        System.out.print(line);
        System.out.flush();
        table.append(line);
    }

    private static void round(ExternalDaemon daemon, BenchGuest guest, String id) throws Exception {
        String clone = id + "-c";
        daemon.post("/v1/sandboxes", guest.specFor(id)).expect(201);
        daemon.post("/v1/sandboxes/" + id + "/suspend", "{}").expect(200);
        daemon.post("/v1/sandboxes/" + id + "/resume", "{}").expect(200);
        String checkpoint = daemon.post("/v1/sandboxes/" + id + "/checkpoint", "{}").expect(200).body().path("snapshotId").asText();
        ObjectNode request = ApiJson.mapper().createObjectNode().put("fromSnapshot", checkpoint).put("id", clone);
        request.putObject("identity").put("name", clone).put("namespace", "soak");
        daemon.post("/v1/sandboxes", request.toString()).expect(201);
        daemon.post("/v1/sandboxes/" + clone + "/suspend", "{}").expect(200);
        daemon.delete("/v1/sandboxes/" + clone + "?deleteSnapshots=true").expect(204);
        daemon.delete("/v1/sandboxes/" + id + "?deleteSnapshots=true").expect(204);
    }

    private record Sample(int rounds, double rssMib) {}

    private Sample sample(ExternalDaemon daemon, int rounds, double seconds) throws Exception {
        long pid = daemon.pid();
        String heap = jcmd(pid, "GC.run") + jcmd(pid, "GC.heap_info");
        double rss = daemon.rssMib();
        long fds;
        try (var entries = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds = entries.count();
        }
        long threads;
        try (var entries = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            threads = entries.count();
        }
        print(String.format("| %d | %.0f | %.1f | %.1f | %d | %d | %.0f |%n", rounds, rss, kib(HEAP_USED, heap) / 1024.0,
                kib(HEAP_TOTAL, heap) / 1024.0, fds, threads, seconds));
        return new Sample(rounds, rss);
    }

    /**
     * The sum of every generation's figure the pattern matches in {@code GC.heap_info} (serial: young and old). A
     * generation's line is the unindented one with a total (JDK 25 names them {@code DefNew} and {@code Tenured}, older
     * JDKs {@code def new generation}); the indented lines below it are its spaces.
     */
    private static long kib(Pattern figure, String heapInfo) {
        long sum = 0;
        for (String line : heapInfo.split("\n")) {
            if (line.startsWith(" ") || !line.contains(" total ")) continue;
            Matcher m = figure.matcher(line);
            if (m.find()) sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        argv.addAll(List.of(command));
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) throw new IOException("jcmd " + String.join(" ", command) + " failed: " + output);
        return output;
    }
}
