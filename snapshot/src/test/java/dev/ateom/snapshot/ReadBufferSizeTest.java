package dev.ateom.snapshot;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReadBufferSizeTest {
    private static final int PAGE = MemoryRangesCompactor.PAGE_SIZE;
    private static final int CHUNK = 1 << 20;

    @Test
    void contentIsRoundedUpToWholePagesUpToTheChunk() {
        assertThat(ReadBufferSize.forContent(0, CHUNK)).as("an empty file still reads into a page").isEqualTo(PAGE);
        assertThat(ReadBufferSize.forContent(1, CHUNK)).isEqualTo(PAGE);
        assertThat(ReadBufferSize.forContent(PAGE, CHUNK)).isEqualTo(PAGE);
        assertThat(ReadBufferSize.forContent(PAGE + 1L, CHUNK)).isEqualTo(2 * PAGE);
        assertThat(ReadBufferSize.forContent(CHUNK - 1L, CHUNK)).isEqualTo(CHUNK);
        assertThat(ReadBufferSize.forContent(4L << 30, CHUNK)).as("a 4 GiB file reads in chunks").isEqualTo(CHUNK);
    }

    @Test
    void extentsCountFromTheirPageAlignedStart() {
        assertThat(ReadBufferSize.forExtents(List.of(), CHUNK)).isEqualTo(PAGE);
        // 100 bytes from offset PAGE - 50 span two pages once aligned down
        assertThat(ReadBufferSize.forExtents(List.of(new Extent(PAGE - 50, 100)), CHUNK)).isEqualTo(2 * PAGE);
        assertThat(ReadBufferSize.forExtents(List.of(new Extent(0, PAGE), new Extent(8L * PAGE, 3L * PAGE)), CHUNK)).isEqualTo(3 * PAGE);
        assertThat(ReadBufferSize.forExtents(List.of(new Extent(0, 64L << 20)), CHUNK)).isEqualTo(CHUNK);
    }
}
