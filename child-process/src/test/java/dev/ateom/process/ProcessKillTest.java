package dev.ateom.process;

import dev.ateom.fixtures.wait.BlockedAsyncPool;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessKillTest {

    /**
     * The kill sees its child reaped without any stage on the common fork-join pool: with every worker of that pool
     * blocked (here by sleeps, in a daemon by anything blocking there) it still returns true, the child gone.
     */
    @Test
    void aKilledChildIsSeenGoneWhileTheCommonPoolIsBlocked() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try (BlockedAsyncPool blocked = BlockedAsyncPool.hold()) {
            assertThat(ProcessKill.killTree(sleeper, Duration.ofSeconds(5))).as("gone within the timeout").isTrue();
            assertThat(sleeper.isAlive()).isFalse();
        } finally {
            sleeper.destroyForcibly();
        }
    }
}
