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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: archives and extracts a 1 GiB tree of mixed file sizes with {@link DurableArchive}
 * and with GNU tar in the same run, and prints throughput and the ratio. Both sides fsync the
 * archive they create (DurableArchive always does; GNU tar gets a {@code sync FILE}); extraction
 * runs without a final sync on both sides (and once more with ours syncing, for reference). Every timed
 * step starts after an untimed {@code sync}, and the order alternates between rounds.
 * Run: {@code mvn -pl snapshot test -Dgroups=benchmark -Dsurefire.excludedGroups=none -Dtest=DurableArchiveBenchmark}
 */
@Tag("benchmark")
class DurableArchiveBenchmark {
    private static final int ROUNDS = 5;

    @TempDir
    Path temp;

    @Test
    void archiveAndExtractAgainstGnuTar() throws Exception {
        Path tree = temp.resolve("tree");
        long bytes = buildTree(tree);
        long entries;
        try (var walk = Files.walk(tree)) {
            entries = walk.count();
        }
        List<Double> oursCreate = new ArrayList<>();
        List<Double> gnuCreate = new ArrayList<>();
        List<Double> oursExtract = new ArrayList<>();
        List<Double> oursExtractSync = new ArrayList<>();
        List<Double> gnuExtract = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            Path ours = temp.resolve("ours.tar");
            Path gnu = temp.resolve("gnu.tar");
            Path oursOut = temp.resolve("ours-out");
            Path gnuOut = temp.resolve("gnu-out");
            // each timed step starts with no dirty pages (an untimed sync), and who goes first alternates:
            // otherwise one side pays for the other's writeback
            Step oursCreateStep = () -> oursCreate.add(timed(() -> DurableArchive.create(tree, ours)));
            Step gnuCreateStep = () -> gnuCreate.add(timed(() -> {
                run("tar", "--create", "--file", gnu.toString(), "--xattrs", "--sparse", "--numeric-owner", "-C", tree.toString(), ".");
                run("sync", gnu.toString());
            }));
            Step oursExtractStep = () -> {
                oursExtract.add(timed(() -> DurableArchive.extract(ours, oursOut, ExtractOptions.DEFAULT.withoutSync())));
                TreeDeleter.delete(oursOut);
                oursExtractSync.add(timed(() -> DurableArchive.extract(ours, oursOut)));
                TreeDeleter.delete(oursOut);
            };
            Step gnuExtractStep = () -> {
                Files.createDirectory(gnuOut);
                gnuExtract.add(timed(() -> run("tar", "--extract", "--file", gnu.toString(), "--xattrs", "--numeric-owner",
                        "--same-permissions", "--warning=no-unknown-keyword", "-C", gnuOut.toString())));
                TreeDeleter.delete(gnuOut);
            };
            boolean oursFirst = round % 2 == 0;
            (oursFirst ? oursCreateStep : gnuCreateStep).run();
            (oursFirst ? gnuCreateStep : oursCreateStep).run();
            (oursFirst ? oursExtractStep : gnuExtractStep).run();
            (oursFirst ? gnuExtractStep : oursExtractStep).run();
            Files.delete(ours);
            Files.delete(gnu);
        }
        double mib = bytes / (1024.0 * 1024.0);
        StringBuilder table = new StringBuilder();
        table.append(String.format("%nDurable archive benchmark: %.0f MiB in %d entries, median of %d rounds%n", mib, entries, ROUNDS));
        table.append(String.format("| %-22s | %10s | %10s | %12s | %14s |%n", "operation", "ateom s", "GNU tar s", "ateom MiB/s", "ratio vs GNU"));
        table.append("|------------------------|------------|------------|--------------|----------------|\n");
        row(table, "create (fsynced)", median(oursCreate), median(gnuCreate), mib);
        row(table, "extract", median(oursExtract), median(gnuExtract), mib);
        row(table, "extract + syncfs", median(oursExtractSync), median(gnuExtract), mib);
        table.append("ratio = GNU tar time / ateom time (>= 1.0 means ateom is at least as fast)\n");
        System.out.print(table);
        Path report = Path.of(System.getProperty("ateom.repo.root", "."), "snapshot", "target", "durable-archive-benchmark.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, table);
    }

    private static void row(StringBuilder table, String name, double ours, double gnu, double mib) {
        table.append(String.format("| %-22s | %10.2f | %10.2f | %12.0f | %13.2fx |%n", name, ours, gnu, mib / ours, gnu / ours));
    }

    /** About 1 GiB: 16000 small files, 400 medium, 4 large, in 100 directories, random (incompressible) content. */
    private static long buildTree(Path tree) throws IOException {
        Random random = new Random(7);
        byte[] block = new byte[1 << 20];
        long total = 0;
        for (int d = 0; d < 100; d++) {
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
        long remaining = (1L << 30) - total;
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
    private interface Step {
        void run() throws Exception;
    }

    /** Seconds the step takes, after an untimed sync so that it starts without others' dirty pages. */
    private static double timed(Step step) throws Exception {
        run("sync");
        long start = System.nanoTime();
        step.run();
        return (System.nanoTime() - start) / 1e9;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed");
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
