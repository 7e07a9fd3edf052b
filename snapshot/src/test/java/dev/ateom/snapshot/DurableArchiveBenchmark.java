package dev.ateom.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: {@link DurableArchiveVsTar} on a 1 GiB tree, 5 rounds; prints the table (also part of
 * {@code scripts/bench.sh}'s report).
 * Run: {@code mvn -pl snapshot test -Dgroups=benchmark -Dsurefire.excludedGroups=none -Dtest=DurableArchiveBenchmark}
 */
@Tag("benchmark")
class DurableArchiveBenchmark {
    @TempDir
    Path temp;

    @Test
    void archiveAndExtractAgainstGnuTar() throws Exception {
        String table = DurableArchiveVsTar.measure(temp, 1L << 30, 5).markdown();
        System.out.print(table);
        Path report = Path.of(System.getProperty("ateom.repo.root", "."), "snapshot", "target", "durable-archive-benchmark.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, table);
    }
}
