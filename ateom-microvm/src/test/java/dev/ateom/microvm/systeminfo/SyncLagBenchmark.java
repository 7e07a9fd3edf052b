package dev.ateom.microvm.systeminfo;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: {@link SyncLag} for 1, 10 and 100 files, prints a table (also part of {@code scripts/bench.sh}'s report).
 * Run: {@code mvn -pl ateom-microvm test -Dtest=SyncLagBenchmark -Dgroups=benchmark -Dsurefire.excludedGroups=none}
 * ({@code -Dateom.bench.updates=N} to change the 1 000 updates per row).
 */
@Tag("benchmark")
class SyncLagBenchmark {
    private static final int UPDATES = Integer.getInteger("ateom.bench.updates", 1000);

    @TempDir
    Path tmp;

    @Test
    void lagFromSourceChangeToCommittedGeneration() throws Exception {
        System.out.print(SyncLag.measure(tmp, UPDATES, 1, 10, 100).markdown());
    }
}
