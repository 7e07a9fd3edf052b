package dev.ateom.snapshot;

import java.nio.file.Path;

/** Child-process main for {@link CommitCrashTest}: commits a snapshot and dies (halt, no cleanup) right after the given step. */
public final class CommitCrasher {
    static final int DIED_AT_STEP = 77;

    private CommitCrasher() {
    }

    public static void main(String[] args) throws Exception {
        Path state = Path.of(args[0]);
        CommitStep stopAfter = CommitStep.valueOf(args[1]);
        SnapshotStore store = SnapshotStore.open(state, step -> {
            if (step == stopAfter) {
                Runtime.getRuntime().halt(DIED_AT_STEP);
            }
        });
        SnapshotFixture.commit(store, state, "crashy");
        System.exit(0);
    }
}
