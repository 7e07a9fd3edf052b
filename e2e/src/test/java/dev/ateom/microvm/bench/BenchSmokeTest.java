package dev.ateom.microvm.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark harness at its smallest, so that it cannot rot between the runs that measure: one cycle per backend
 * (the stand-in's {@code none}, and {@code qemu} with one TCG guest booted: no scaling levels there), scaling 1 and 2
 * on {@code none}, 4 MiB trees, none of the pauses that give the measured timings their meaning (the idle RSS's settle,
 * the run before resumeAfterRun, the moment before resumeLater). Every table and chart is written with the rows it
 * should have; asserts the shape of the output, never a time.
 */
class BenchSmokeTest {
    @TempDir Path work;
    @TempDir Path output;

    @Test
    void writesEveryTableAndChart() throws Exception {
        BenchSettings settings = new BenchSettings(List.of("none", "qemu"), 1, List.of(1, 2), List.of(), 1, 4L << 20, 1, 4L << 20, 3,
                Duration.ZERO, BenchSettings.CyclePauses.NONE, Duration.ofSeconds(120), List.of(), output, false);

        BenchHarness.Report report = new BenchHarness(settings, work).run();

        assertThat(report.files()).containsOnlyKeys("bench.md", "speed-none.md", "speed-qemu.md", "scaling-none.svg", "resume-steps.svg");
        report.files().values().forEach(path -> assertThat(path).exists().isNotEmptyFile());
        for (String backend : List.of("none", "qemu")) {
            String speed = Files.readString(output.resolve("speed-" + backend + ".md"));
            for (String op : List.of("create", "resumeAfterRun", "resume", "resumeLater", "clone")) {
                assertThat(speed).containsPattern("\\| " + op + " \\| 1 \\| [0-9.]+ \\|");
            }
            // three per cycle: before the resume right after it once the sandbox ran, before the one back to back, and
            // before the resume a moment later
            assertThat(speed).containsPattern("\\| suspend \\| 3 \\| [0-9.]+ \\|");
            assertThat(speed).contains("the daemon's own share").containsPattern("\\| resume \\| [0-9.]+ \\| [0-9.]+ \\|")
                    .containsPattern("\\| resumeAfterRun \\| [0-9.]+ \\| [0-9.]+ \\|");
            assertThat(speed).contains("| start → first answer |", "| idle RSS |");
            assertThat(speed).containsPattern("VMMs the cycles' bring-ups took from the warm pool / started cold: [0-9]+ / [0-9]+");
        }
        String none = Files.readString(output.resolve("speed-none.md"));
        // the clone once the host settled: on none only, where the daemon's own share is measured
        assertThat(none).containsPattern("\\| cloneLater \\| 1 \\| [0-9.]+ \\|").containsPattern("\\| cloneLater \\| [0-9.]+ \\| [0-9.]+ \\|");
        assertThat(Files.readString(output.resolve("speed-qemu.md"))).doesNotContain("| cloneLater |");
        // checkpoint and fork (issue 27: no slower), on none only too; a fork has no hypervisor calls of its own to divide by
        assertThat(none).containsPattern("\\| checkpoint \\| 1 \\| [0-9.]+ \\|.*\\| [0-9.]+× \\| no slower \\(before/after\\) \\| — \\|")
                .containsPattern("\\| fork \\| 1 \\| [0-9.]+ \\|.*\\| — \\| no slower \\(before/after\\) \\| — \\|");
        assertThat(Files.readString(output.resolve("speed-qemu.md"))).doesNotContain("| fork |", "| checkpoint |");
        assertThat(none).contains("| RSS, 2 running sandboxes |");
        for (int level : List.of(1, 2)) {
            for (String op : List.of("create", "suspend", "resume")) {
                assertThat(none).containsPattern("\\| " + level + " \\| " + op + " \\| " + level + " \\| [0-9.]+ \\|");
            }
        }
        assertThat(Files.readString(output.resolve("speed-qemu.md"))).contains("| RSS, 1 running sandboxes |",
                "(no scaling levels for this backend in this run)");
        String chart = Files.readString(output.resolve("scaling-none.svg"));
        assertThat(chart).startsWith("<svg").endsWith("</svg>\n").contains(">create<", ">suspend<", ">resume<");
        assertThat(chart.split("<polyline", -1)).hasSize(7); // p50 and p99 of three operations
        String steps = Files.readString(output.resolve("resume-steps.svg"));
        assertThat(steps).startsWith("<svg").contains(">none<", ">qemu<", ">vmRestore<");
        String bench = Files.readString(output.resolve("bench.md"));
        assertThat(bench).contains("## none backend", "## qemu backend", "| create (fsynced) |", "| extract |",
                "| snapshot write (both) |", "![resume-steps.svg](resume-steps.svg)");
        for (int files : List.of(1, 10, 100)) {
            assertThat(bench).containsPattern("\\| " + files + " \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| < 1000 ms \\|");
        }
    }
}
