package dev.ateom.store;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import java.util.Arrays;

/** A chunk as stored: one independent zstd frame (level 1) of its plain bytes, checked against its hash when read. */
final class ChunkCodec {
    /** Level 1: guest memory and tar data compress nearly as well as at 3, at about twice the speed. */
    static final int LEVEL = 1;

    private ChunkCodec() {
    }

    static byte[] compress(byte[] plain, int length) {
        byte[] frame = new byte[(int) Zstd.compressBound(length)];
        long size = Zstd.compressByteArray(frame, 0, frame.length, plain, 0, length, LEVEL);
        if (Zstd.isError(size)) {
            throw new IllegalStateException("zstd compression failed: " + Zstd.getErrorName(size));
        }
        return Arrays.copyOf(frame, (int) size);
    }

    /** The largest frame a chunk of {@code length} plain bytes can be stored as (zstd's bound; incompressible data is stored raw). */
    static long maxFrameBytes(int length) {
        return Zstd.compressBound(length);
    }

    /** The plain bytes of a stored frame, which must be exactly {@code length} bytes with the given hash. */
    static byte[] decompressVerified(ChunkHash hash, byte[] frame, int length) throws ChunkCorruptException {
        long declared;
        try {
            declared = Zstd.getFrameContentSize(frame);
        } catch (ZstdException e) {
            throw new ChunkCorruptException(hash, "not a zstd frame (" + e.getMessage() + ")");
        } catch (IndexOutOfBoundsException e) {
            // zstd-jni throws this for a frame cut short before its header's end, even an empty one: a store killed
            // mid-write keeps such objects (s3rver did), and a push must re-send them, not fail on them
            throw new ChunkCorruptException(hash, "a frame cut short (" + frame.length + " bytes)");
        }
        if (declared != length) {
            throw new ChunkCorruptException(hash, "its frame declares " + declared + " bytes, the manifest says " + length);
        }
        byte[] plain = new byte[length];
        long size;
        try {
            size = Zstd.decompressByteArray(plain, 0, length, frame, 0, frame.length);
        } catch (ZstdException e) {
            throw new ChunkCorruptException(hash, "zstd cannot decompress it (" + e.getMessage() + ")");
        }
        if (Zstd.isError(size) || size != length) {
            throw new ChunkCorruptException(hash, "it decompresses to " + (Zstd.isError(size) ? Zstd.getErrorName(size) : size + " bytes")
                    + ", expected " + length);
        }
        ChunkHash actual = ChunkHash.of(plain, 0, length);
        if (!actual.equals(hash)) {
            throw new ChunkCorruptException(hash, "its bytes hash to " + actual);
        }
        return plain;
    }
}
