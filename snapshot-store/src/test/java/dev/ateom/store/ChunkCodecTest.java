package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** A stored frame read back: whatever a damaged store kept is a corrupt chunk (re-sent by a push), never another error. */
class ChunkCodecTest {
    private static final byte[] PLAIN = "a chunk of guest memory, compressible: ".repeat(200).getBytes(StandardCharsets.UTF_8);
    private static final ChunkHash HASH = ChunkHash.of(PLAIN, 0, PLAIN.length);

    @Test
    void aWholeFrameDecompressesToItsBytes() throws ChunkCorruptException {
        byte[] frame = ChunkCodec.compress(PLAIN, PLAIN.length);

        assertThat(ChunkCodec.decompressVerified(HASH, frame, PLAIN.length)).isEqualTo(PLAIN);
    }

    /** A store killed mid-write keeps a prefix of the object: empty (s3rver after an outage), within the header, or within the data. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 5, 12})
    void aFrameCutShortIsACorruptChunk(int kept) {
        byte[] frame = ChunkCodec.compress(PLAIN, PLAIN.length);
        byte[] cut = Arrays.copyOf(frame, Math.min(kept, frame.length - 1));

        assertThatThrownBy(() -> ChunkCodec.decompressVerified(HASH, cut, PLAIN.length)).isInstanceOf(ChunkCorruptException.class);
    }
}
