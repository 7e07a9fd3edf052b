package dev.ateom.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NativeFile#copyFrom}: in the kernel, and through a buffer where the kernel cannot. */
class NativeFileCopyTest {
    private static final int SOURCE_BYTES = (3 << 20) + 517;

    @TempDir
    Path temp;

    @Test
    void aRegionLandsAtTheGivenOffsetAndNothingElseIsWritten() throws IOException {
        byte[] source = sourceBytes();
        for (boolean inKernel : new boolean[] {true, false}) {
            Path target = temp.resolve("target-" + inKernel);
            int from = openSource();
            try (NativeFile to = NativeFile.createNew(target)) {
                FileRegion region = new FileRegion(from, 1000, (2 << 20) + 3);
                if (inKernel) {
                    to.copyFrom(region, 4096);
                } else {
                    to.copyThroughBuffer(region, 4096);
                }
            } finally {
                At.close(from);
            }
            byte[] copied = Files.readAllBytes(target);
            assertThat(copied.length).as("in kernel: %s", inKernel).isEqualTo(4096 + (2 << 20) + 3);
            assertThat(Arrays.copyOfRange(copied, 0, 4096)).as("before the offset").containsOnly(0);
            assertThat(Arrays.copyOfRange(copied, 4096, copied.length)).isEqualTo(Arrays.copyOfRange(source, 1000, 1000 + (2 << 20) + 3));
        }
    }

    @Test
    void aSourceThatEndsInsideTheRegionFails() throws IOException {
        for (boolean inKernel : new boolean[] {true, false}) {
            int from = openSource();
            try (NativeFile to = NativeFile.createNew(temp.resolve("short-" + inKernel))) {
                FileRegion beyondTheEnd = new FileRegion(from, SOURCE_BYTES - 10, 100);
                assertThatThrownBy(() -> {
                    if (inKernel) {
                        to.copyFrom(beyondTheEnd, 0);
                    } else {
                        to.copyThroughBuffer(beyondTheEnd, 0);
                    }
                }).as("in kernel: %s", inKernel).isInstanceOf(EOFException.class).hasMessageContaining("the source ended 10 bytes into a region of 100");
            } finally {
                At.close(from);
            }
        }
    }

    /** The source's descriptor, as the archive's is held: opened for reading, not owned by a NativeFile. */
    private int openSource() throws IOException {
        Path path = temp.resolve("source");
        if (!Files.exists(path)) {
            Files.write(path, sourceBytes());
        }
        return SafeOpen.regularFileDescriptor(path);
    }

    private static byte[] sourceBytes() {
        byte[] bytes = new byte[SOURCE_BYTES];
        new Random(3).nextBytes(bytes);
        return bytes;
    }
}
