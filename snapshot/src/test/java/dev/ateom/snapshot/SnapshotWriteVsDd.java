package dev.ateom.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A snapshot's write as a suspend pays it on the host beside {@code dd} of the same bytes: ateom's side writes the
 * guest memory into the staging dir's memory-ranges (as the hypervisor's vm.snapshot does, 1 MiB writes) and commits
 * (zero pages punched, every file hashed into the manifest, everything fsynced, one rename); dd copies the same file
 * with {@code bs=1M conv=fsync}. The memory is three quarters random pages and one quarter zero pages, as a guest's
 * is after it has run a while. Every timed step starts after an untimed {@code sync} (ateom's write and commit are one
 * step: the commit's fsync writes back what the write left dirty, as on a suspend); who goes first alternates.
 */
public final class SnapshotWriteVsDd {
    private static final int PAGE = 4096;
    /** openssl's SHA-256 uses the CPU's SHA extensions like the JDK's; sha256sum (coreutils) does not everywhere. */
    private static final String[] SHA256_TOOL = Files.isExecutable(Path.of("/usr/bin/openssl"))
            ? new String[] {"/usr/bin/openssl", "sha256"} : new String[] {"sha256sum", "--"};

    private SnapshotWriteVsDd() {
    }

    /**
     * Medians in seconds; ratio = dd time / ateom time (≥ 1.0: ateom's write as fast as a plain copy).
     *
     * @param commitSteps median seconds of each step of the commit, in order (punch, hash, fsync, ...)
     * @param sha256sum   SHA-256 of the same bytes by {@code openssl sha256} (else {@code sha256sum}), page-cache hot: the hashing a manifest costs at least
     */
    public record Result(double mib, int rounds, double oursWrite, double oursCommit, double dd,
                         Map<String, Double> commitSteps, double sha256sum) {
        public double oursTotal() {
            return oursWrite + oursCommit;
        }

        public double ratio() {
            return dd / oursTotal();
        }

        /** A markdown table: ateom's write and commit (step by step) beside dd and sha256sum of the same bytes. */
        public String markdown() {
            StringBuilder table = new StringBuilder();
            table.append(String.format("%nSnapshot write vs dd: %.0f MiB of guest memory (¼ zero pages), median of %d rounds%n%n", mib, rounds));
            table.append("| step | ateom s | dd s | ateom MiB/s | ratio vs dd |\n");
            table.append("|---|---:|---:|---:|---:|\n");
            table.append(String.format("| memory-ranges write (as CHV writes it) | %.2f | | %.0f | |%n", oursWrite, mib / oursWrite));
            table.append(String.format("| commit (punch, hash, fsync, rename) | %.2f | | | |%n", oursCommit));
            commitSteps.forEach((step, seconds) -> table.append(String.format("| · %s | %.2f | | | |%n", step, seconds)));
            table.append(String.format("| snapshot write (both) | %.2f | %.2f | %.0f | %.2f× |%n", oursTotal(), dd, mib / oursTotal(), ratio()));
            table.append(String.format("| floor: dd + %s of the same bytes | %.2f | | | %.2f× |%n", String.join(" ", SHA256_TOOL),
                    dd + sha256sum, dd / (dd + sha256sum)));
            table.append(String.format("%n%s of the same bytes (page cache hot): %.2f s (%.0f MiB/s); every snapshot file is hashed "
                    + "into the manifest, so a commit costs at least a hash of the memory beside the write and fsync that dd "
                    + "also pays.%n", String.join(" ", SHA256_TOOL), sha256sum, mib / sha256sum));
            table.append("ratio = dd time / ateom time (1.0: ateom writes a snapshot as fast as dd copies its bytes)\n");
            return table.toString();
        }
    }

    /** Times ateom's snapshot write and dd on {@code memoryBytes} of guest memory (a multiple of 1 MiB). */
    public static Result measure(Path temp, long memoryBytes, int rounds) throws Exception {
        Path memory = writeGuestMemory(temp.resolve("guest-memory"), memoryBytes);
        Path durable = Files.createDirectories(temp.resolve("durable"));
        Map<CommitStep, Long> stepEnds = new EnumMap<>(CommitStep.class);
        SnapshotStore store = SnapshotStore.open(Files.createDirectories(temp.resolve("state")),
                step -> stepEnds.put(step, System.nanoTime()));
        List<Double> writes = new ArrayList<>();
        List<Double> commits = new ArrayList<>();
        List<Double> dds = new ArrayList<>();
        List<Double> hashes = new ArrayList<>();
        Map<String, List<Double>> steps = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            String id = "bench-" + round;
            DurableArchiveVsTar.Step ours = () -> {
                try (SnapshotStaging staging = store.stage(id)) {
                    SnapshotFixture.copyResource("/chv-samples/config.json", staging.chvDirectory().resolve("config.json"));
                    SnapshotFixture.copyResource("/chv-samples/state.json", staging.chvDirectory().resolve("state.json"));
                    staging.archiveDurable(durable, ArchiveCompression.NONE, ArchiveProgress.NONE);
                    // the commit follows the write at once, as on a suspend: its fsync writes back what the write left dirty
                    long[] commitStart = new long[1];
                    double total = DurableArchiveVsTar.timed(() -> {
                        copy(memory, staging.chvDirectory().resolve("memory-ranges"));
                        commitStart[0] = System.nanoTime();
                        stepEnds.clear();
                        staging.commit(SnapshotFixture.METADATA);
                    });
                    double commit = (System.nanoTime() - commitStart[0]) / 1e9;
                    commits.add(commit);
                    writes.add(total - commit);
                    long previous = commitStart[0];
                    for (Map.Entry<CommitStep, Long> step : stepEnds.entrySet()) {
                        steps.computeIfAbsent(step.getKey().name().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                                .add((step.getValue() - previous) / 1e9);
                        previous = step.getValue();
                    }
                }
                store.delete(id);
            };
            Path copy = temp.resolve("dd-copy");
            DurableArchiveVsTar.Step dd = () -> {
                dds.add(DurableArchiveVsTar.timed(() -> DurableArchiveVsTar.run("dd", "if=" + memory, "of=" + copy, "bs=1M", "conv=fsync")));
                Files.delete(copy);
            };
            boolean oursFirst = round % 2 == 0;
            (oursFirst ? ours : dd).run();
            (oursFirst ? dd : ours).run();
            hashes.add(DurableArchiveVsTar.timed(() -> DurableArchiveVsTar.run(SHA256_TOOL[0], SHA256_TOOL[1], memory.toString())));
        }
        Files.delete(memory);
        Map<String, Double> stepMedians = new LinkedHashMap<>();
        steps.forEach((step, values) -> stepMedians.put(step, DurableArchiveVsTar.median(values)));
        return new Result(memoryBytes / (1024.0 * 1024.0), rounds, DurableArchiveVsTar.median(writes),
                DurableArchiveVsTar.median(commits), DurableArchiveVsTar.median(dds), stepMedians, DurableArchiveVsTar.median(hashes));
    }

    private static Path writeGuestMemory(Path file, long bytes) throws IOException {
        Random random = new Random(11);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < bytes; written += block.length) {
                random.nextBytes(block);
                for (int page = 3; page * PAGE < block.length; page += 4) {
                    Arrays.fill(block, page * PAGE, (page + 1) * PAGE, (byte) 0);
                }
                out.write(block, 0, (int) Math.min(block.length, bytes - written));
            }
        }
        return file;
    }

    /** 1 MiB reads and writes, like dd bs=1M (no copy_file_range, which could share extents). */
    private static void copy(Path from, Path to) throws IOException {
        byte[] buffer = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(from); OutputStream out = Files.newOutputStream(to)) {
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                out.write(buffer, 0, n);
            }
        }
    }
}
