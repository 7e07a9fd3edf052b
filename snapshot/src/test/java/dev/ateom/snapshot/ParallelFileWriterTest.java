package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ParallelFileWriterTest {
    @Test
    void aFailedWriteSurfacesAtTheNextCallWithItsCause() throws IOException {
        try (ParallelFileWriter writers = new ParallelFileWriter()) {
            writers.submit("bad", 10, () -> {
                throw new IOException("disk full writing bad");
            });
            assertThatThrownBy(writers::awaitAll).isInstanceOf(IOException.class).hasMessageContaining("disk full writing bad");
            assertThatThrownBy(() -> writers.submit("next", 1, () -> { })).hasMessageContaining("disk full writing bad");
        }
    }

    @Test
    void awaitAllWaitsForEveryWrite() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean written = new AtomicBoolean();
        try (ParallelFileWriter writers = new ParallelFileWriter()) {
            writers.submit("slow", 1, () -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                written.set(true);
            });
            Thread releaser = Thread.ofVirtual().start(() -> {
                sleep(100);
                release.countDown();
            });
            writers.awaitAll();
            assertThat(written).isTrue();
            releaser.join();
            writers.awaitAll(); // nothing left to wait for
        }
    }

    @Test
    void writesThatNeverRunStillReleaseWhatTheyHold() throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch block = new CountDownLatch(1);
        AtomicInteger released = new AtomicInteger();
        ParallelFileWriter writers = new ParallelFileWriter();
        for (int i = 0; i < 6; i++) {
            writers.submit("f" + i, 1, () -> {
                started.countDown();
                try {
                    block.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, released::incrementAndGet);
        }
        started.await();
        writers.close();
        assertThat(released).hasValue(6);
    }

    @Test
    void closeStopsTheWritersBeforeReturning() throws Exception {
        AtomicBoolean interrupted = new AtomicBoolean();
        ParallelFileWriter writers = new ParallelFileWriter();
        CountDownLatch started = new CountDownLatch(1);
        writers.submit("stuck", 1, () -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        started.await();
        writers.close();
        assertThat(interrupted).isTrue();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
