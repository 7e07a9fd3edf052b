package dev.ateom.microvm.bench;

import dev.ateom.microvm.sandbox.TestTools;
import dev.ateom.microvm.systeminfo.SyncLag;
import dev.ateom.snapshot.DurableArchiveVsTar;
import dev.ateom.snapshot.SnapshotWriteVsDd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Issue 15's benchmark harness in one run: per backend the lifecycle through the API, the daemon's start and memory
 * and the scaling levels (and on one backend the system-info sync lag through a sandbox); then the host-side comparisons
 * (durable archive vs GNU tar, snapshot write vs dd). Writes {@code bench.md} (everything), {@code speed-<backend>.md}, {@code resume-steps.svg} and
 * {@code scaling-<backend>.svg} into the settings' output dir.
 */
final class BenchHarness {
    /** What one run wrote: file name → path, the whole report as markdown. */
    record Report(Map<String, Path> files, String markdown) {}

    private final BenchSettings settings;
    private final Path work;

    /** @param work scratch space for the daemons' state and the trees (deleted by the caller) */
    BenchHarness(BenchSettings settings, Path work) {
        this.settings = settings;
        this.work = work;
    }

    Report run() throws Exception {
        Files.createDirectories(settings.output());
        Map<String, Path> files = new LinkedHashMap<>();
        StringBuilder md = new StringBuilder("# ateom benchmark\n\n").append(environment("at start"));
        List<BackendResult> backends = new ArrayList<>();
        // the sync lag is host-side work (source dir → the sandbox's system-info dir): measured once, without a guest if there is none
        String syncLagBackend = settings.backends().contains("none") ? "none" : settings.backends().getFirst();
        for (String backend : settings.backends()) {
            BackendResult result = new BackendBench(settings, backend, work.resolve("backend-" + backend), backend.equals(syncLagBackend)).run();
            backends.add(result);
            String section = result.markdown();
            System.out.println(section);
            files.put("speed-" + backend + ".md", write("speed-" + backend + ".md", section));
            if (!result.scaling().rows().isEmpty()) {
                files.put("scaling-" + backend + ".svg", write("scaling-" + backend + ".svg", SvgCharts.scaling(result.scaling())));
            }
            md.append("\n## ").append(backend).append(" backend\n").append(section);
        }
        files.put("resume-steps.svg", write("resume-steps.svg", SvgCharts.resumeSteps(backends.stream().map(BackendResult::lifecycle).toList())));

        md.append("\n## Host-side comparisons\n");
        String archive = DurableArchiveVsTar.measure(Files.createDirectories(work.resolve("archive")), settings.archiveBytes(),
                settings.archiveRounds()).markdown();
        String snapshot = SnapshotWriteVsDd.measure(Files.createDirectories(work.resolve("snapshot")), settings.snapshotBytes(),
                settings.archiveRounds()).markdown();
        String syncLag = backends.stream().flatMap(b -> b.syncLag().stream()).map(SyncLag.Result::markdown).findFirst().orElseThrow();
        for (String section : List.of(archive, snapshot, syncLag)) {
            System.out.println(section);
            md.append(section);
        }
        md.append("\n## Charts\n\n");
        files.keySet().stream().filter(name -> name.endsWith(".svg")).forEach(name -> md.append("- ![").append(name).append("](")
                .append(name).append(")\n"));
        md.append("\n").append(environment("at end"));
        files.put("bench.md", write("bench.md", md.toString()));
        return new Report(files, md.toString());
    }

    private String environment(String when) throws IOException {
        String[] load = Files.readString(Path.of("/proc/loadavg")).strip().split(" ");
        return String.format("- %s: %s, %d cores, load average %s, commit %s%n- settings: backends %s, %d cycles, scaling %s × %d rounds,"
                        + " (with a guest: %s), archive %d MiB × %d rounds, snapshot %d MiB, %d sync updates per row, daemon args %s%n",
                when, Instant.now(), Runtime.getRuntime().availableProcessors(),
                load[0] + " " + load[1] + " " + load[2],
                commit(), settings.backends(), settings.cycles(), settings.scalingLevels(), settings.scalingRounds(), settings.guestScalingLevels(),
                settings.archiveBytes() >> 20, settings.archiveRounds(), settings.snapshotBytes() >> 20, settings.syncUpdates(),
                settings.daemonArgs().isEmpty() ? "(none)" : String.join(" ", settings.daemonArgs()));
    }

    private static String commit() {
        try {
            Process git = new ProcessBuilder("git", "-C", TestTools.repoRoot().toString(), "rev-parse", "--short", "HEAD")
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? out : "unknown";
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(settings.output().resolve(name), content);
    }
}
