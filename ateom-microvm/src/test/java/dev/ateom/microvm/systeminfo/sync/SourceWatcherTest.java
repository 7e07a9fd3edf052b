package dev.ateom.microvm.systeminfo.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.fixtures.wait.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceWatcherTest {
    @TempDir
    Path tmp;

    @Test
    void sharesOneWatchPerDirectoryAndNotifiesEveryHandle() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        Semaphore first = new Semaphore(0);
        Semaphore second = new Semaphore(0);
        try (SourceWatcher watcher = new SourceWatcher()) {
            watcher.start();
            SourceWatcher.Handle a = watcher.newHandle(first::release);
            SourceWatcher.Handle b = watcher.newHandle(second::release);
            assertThat(a.watch(Set.of(dir))).isEmpty();
            assertThat(b.watch(Set.of(dir, tmp.resolve("missing")))).containsExactly(tmp.resolve("missing"));
            assertThat(watcher.watchCount()).isEqualTo(1);

            Files.writeString(dir.resolve("f"), "1");
            assertThat(first.tryAcquire(2, TimeUnit.SECONDS)).isTrue();
            assertThat(second.tryAcquire(2, TimeUnit.SECONDS)).isTrue();

            a.close();
            assertThat(watcher.watchCount()).isEqualTo(1);
            first.drainPermits();
            Files.writeString(dir.resolve("g"), "2");
            assertThat(second.tryAcquire(2, TimeUnit.SECONDS)).isTrue();
            // one thread notifies every handle of an event before it takes the next: once the next event reached
            // b, a would have been told of the first one if it were still watching
            second.drainPermits();
            Files.writeString(dir.resolve("h"), "3");
            assertThat(second.tryAcquire(2, TimeUnit.SECONDS)).isTrue();
            assertThat(first.availablePermits()).as("closed handle").isZero();

            b.close();
            assertThat(watcher.watchCount()).isZero();
        }
    }

    @Test
    void aDeletedDirectoryNotifiesAndIsWatchedAgainOnceBack() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("src"));
        Semaphore events = new Semaphore(0);
        try (SourceWatcher watcher = new SourceWatcher()) {
            watcher.start();
            SourceWatcher.Handle handle = watcher.newHandle(events::release);
            handle.watch(Set.of(dir));
            Files.delete(dir);
            assertThat(events.tryAcquire(2, TimeUnit.SECONDS)).isTrue();
            Eventually.until(Duration.ofSeconds(2), () -> watcher.watchCount() == 0, "the watch to go with the directory");

            Files.createDirectory(dir);
            assertThat(handle.watch(Set.of(dir))).isEmpty();
            events.drainPermits();
            Files.writeString(dir.resolve("back"), "x");
            assertThat(events.tryAcquire(2, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void startAndCloseAreIdempotentAndAWatcherNeverStartedClosesToo() throws Exception {
        SourceWatcher never = new SourceWatcher();
        never.close();
        never.close();
        never.start(); // after close: stays stopped
        assertThat(watcherThreads()).isZero();

        SourceWatcher watcher = new SourceWatcher();
        watcher.start();
        watcher.start();
        assertThat(watcherThreads()).as("one thread however often started").isEqualTo(1);
        watcher.close();
        watcher.close();
        assertThat(watcherThreads()).as("close joined it").isZero();
    }

    private static long watcherThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("ateom-systeminfo-watcher")).count();
    }
}
