package dev.ateom.snapshot;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Archives and extracts one tree of mixed file sizes with {@link DurableArchive} and with GNU tar in the same run.
 * Both sides fsync the archive they create (DurableArchive always does; GNU tar gets a {@code sync FILE}); extraction
 * runs without a final sync on both sides (and once more with ours syncing, for reference). Every timed step starts
 * after an untimed {@code sync}, and who goes first alternates between rounds, so neither pays for the other's
 * writeback. Used by {@link DurableArchiveBenchmark} (1 GiB) and the benchmark harness ({@code scripts/bench.sh}).
 * <p>
 * No extracted tree is deleted until every round is done: on ext4 without a journal (this project's build
 * machines) the inode allocator passes over every inode freed in the last 60 s on each create
 * ({@code recently_deleted}), so an extraction timed right after a 16k-file tree was deleted paid seconds for it,
 * and which tool came after a deletion decided the ratio. Needs disk for {@code 3 × rounds} extracted trees.
 */
public final class DurableArchiveVsTar {
    private static final long FULL_TREE = 1L << 30;

    private DurableArchiveVsTar() {
    }

    /** Medians in seconds; ratio = GNU tar time / ateom time (≥ 1.0: ateom at least as fast). */
    public record Result(double mib, long entries, int rounds, double oursCreate, double gnuCreate, double oursExtract,
                         double oursExtractSync, double gnuExtract) {
        public double createRatio() {
            return gnuCreate / oursCreate;
        }

        public double extractRatio() {
            return gnuExtract / oursExtract;
        }

        /** A markdown table: one row per operation, ateom beside GNU tar. */
        public String markdown() {
            StringBuilder table = new StringBuilder();
            table.append(String.format("%nDurable archive vs GNU tar: %.0f MiB in %d entries, median of %d rounds%n%n", mib, entries, rounds));
            table.append("| operation | ateom s | GNU tar s | ateom MiB/s | ratio vs GNU | goal | met |\n");
            table.append("|---|---:|---:|---:|---:|---|---|\n");
            row(table, "create (fsynced)", oursCreate, gnuCreate, true);
            row(table, "extract", oursExtract, gnuExtract, true);
            row(table, "extract + syncfs", oursExtractSync, gnuExtract, false);
            table.append("\nratio = GNU tar time / ateom time (≥ 1.0 means ateom is at least as fast)\n");
            return table.toString();
        }

        private void row(StringBuilder table, String name, double ours, double gnu, boolean hasGoal) {
            double ratio = gnu / ours;
            table.append(String.format("| %s | %.2f | %.2f | %.0f | %.2f× | %s | %s |%n", name, ours, gnu, mib / ours, ratio,
                    hasGoal ? "≥ 1.0×" : "reference", hasGoal ? (ratio >= 1.0 ? "met" : "not met") : ""));
        }
    }

    /** Builds a tree of about {@code bytes} under {@code temp} and times both tools on it for {@code rounds} rounds. */
    public static Result measure(Path temp, long bytes, int rounds) throws Exception {
        Path tree = temp.resolve("tree");
        long total = buildTree(tree, bytes);
        long entries;
        try (var walk = Files.walk(tree)) {
            entries = walk.count();
        }
        List<Double> oursCreate = new ArrayList<>();
        List<Double> gnuCreate = new ArrayList<>();
        List<Double> oursExtract = new ArrayList<>();
        List<Double> oursExtractSync = new ArrayList<>();
        List<Double> gnuExtract = new ArrayList<>();
        List<Path> extracted = new ArrayList<>();
        try {
            for (int round = 0; round < rounds; round++) {
                Path ours = temp.resolve("ours.tar");
                Path gnu = temp.resolve("gnu.tar");
                Path oursOut = temp.resolve("ours-out-" + round);
                Path oursSyncedOut = temp.resolve("ours-synced-out-" + round);
                Path gnuOut = temp.resolve("gnu-out-" + round);
                extracted.addAll(List.of(oursOut, oursSyncedOut, gnuOut));
                Step oursCreateStep = () -> oursCreate.add(timed(() -> DurableArchive.create(tree, ours)));
                Step gnuCreateStep = () -> gnuCreate.add(timed(() -> {
                    run("tar", "--create", "--file", gnu.toString(), "--xattrs", "--sparse", "--numeric-owner", "-C", tree.toString(), ".");
                    run("sync", gnu.toString());
                }));
                Step oursExtractStep = () -> {
                    oursExtract.add(timed(() -> DurableArchive.extract(ours, oursOut, ExtractOptions.DEFAULT.withoutSync())));
                    oursExtractSync.add(timed(() -> DurableArchive.extract(ours, oursSyncedOut)));
                };
                Step gnuExtractStep = () -> {
                    Files.createDirectory(gnuOut);
                    gnuExtract.add(timed(() -> run("tar", "--extract", "--file", gnu.toString(), "--xattrs", "--numeric-owner",
                            "--same-permissions", "--warning=no-unknown-keyword", "-C", gnuOut.toString())));
                };
                boolean oursFirst = round % 2 == 0;
                (oursFirst ? oursCreateStep : gnuCreateStep).run();
                (oursFirst ? gnuCreateStep : oursCreateStep).run();
                (oursFirst ? oursExtractStep : gnuExtractStep).run();
                (oursFirst ? gnuExtractStep : oursExtractStep).run();
                Files.delete(ours);
                Files.delete(gnu);
            }
        } finally {
            for (Path out : extracted) {
                TreeDeleter.delete(out);
            }
        }
        TreeDeleter.delete(tree);
        return new Result(total / (1024.0 * 1024.0), entries, rounds, median(oursCreate), median(gnuCreate), median(oursExtract),
                median(oursExtractSync), median(gnuExtract));
    }

    /**
     * About {@code bytes} of random (incompressible) content: per 1/100 GiB one directory of 160 small files
     * (0.5-16.5 KiB) and 4 medium ones (0.25-1.25 MiB), the rest in 4 large files.
     */
    private static long buildTree(Path tree, long bytes) throws IOException {
        Random random = new Random(7);
        byte[] block = new byte[1 << 20];
        long total = 0;
        int dirs = (int) Math.max(1, Math.min(100, bytes * 100 / FULL_TREE));
        for (int d = 0; d < dirs; d++) {
            Path dir = Files.createDirectories(tree.resolve("dir-" + d).resolve("sub-" + (d % 7)));
            for (int f = 0; f < 160; f++) {
                int size = 512 + random.nextInt(16 * 1024);
                random.nextBytes(block);
                Files.write(dir.resolve("small-" + f), Arrays.copyOf(block, size));
                total += size;
            }
            for (int f = 0; f < 4; f++) {
                int size = (256 << 10) + random.nextInt(1 << 20);
                random.nextBytes(block);
                Files.write(dir.resolve("medium-" + f + ".bin"), Arrays.copyOf(block, size));
                total += size;
            }
        }
        long remaining = Math.max(0, bytes - total);
        for (int f = 0; f < 4; f++) {
            try (RandomAccessFile raf = new RandomAccessFile(tree.resolve("large-" + f + ".img").toFile(), "rw")) {
                for (long written = 0; written < remaining / 4; written += block.length) {
                    random.nextBytes(block);
                    raf.write(block, 0, (int) Math.min(block.length, remaining / 4 - written));
                }
            }
            total += remaining / 4;
        }
        return total;
    }

    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /** Seconds the step takes, after an untimed sync so that it starts without others' dirty pages. */
    static double timed(Step step) throws Exception {
        run("sync");
        long start = System.nanoTime();
        step.run();
        return (System.nanoTime() - start) / 1e9;
    }

    static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed");
        }
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
