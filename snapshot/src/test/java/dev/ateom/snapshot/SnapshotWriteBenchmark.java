package dev.ateom.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: {@link SnapshotWriteVsDd} alone (512 MiB, 5 rounds unless {@code -Dbench.snapshotMib} and
 * {@code -Dbench.rounds} say otherwise); prints the table (also part of {@code scripts/bench.sh}'s report).
 * Run: {@code mvn -pl snapshot test -Dsurefire.excludedGroups=none -Dtest=SnapshotWriteBenchmark}
 */
@Tag("benchmark")
class SnapshotWriteBenchmark {
    @TempDir
    Path temp;

    @Test
    void snapshotWriteAgainstDd() throws Exception {
        long mib = Long.getLong("bench.snapshotMib", 512);
        String table = SnapshotWriteVsDd.measure(temp, mib << 20, Integer.getInteger("bench.rounds", 5)).markdown();
        System.out.print(table);
        Path report = Path.of(System.getProperty("ateom.repo.root", "."), "snapshot", "target", "snapshot-write-benchmark.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, table);
    }
}
