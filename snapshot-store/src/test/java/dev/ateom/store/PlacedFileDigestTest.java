package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.MemoryPageDigest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pull's digest of the bytes it places equals the digest of the assembled file, in whatever order the pieces come. */
class PlacedFileDigestTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private record Piece(long offset, byte[] data) {
    }

    @Test
    void guestMemoryPlacedOutOfOrderWithHolesDigestsLikeTheFile() throws IOException {
        // 2 MiB pieces over 72 MiB: random pages, zero pages inside data pieces, holes between; more out-of-order
        // bytes than the digest keeps waiting, so some pieces are read back from the file
        long size = 72L * MIB + 5000; // a short last page
        Path file = dir.resolve("memory-ranges");
        List<Piece> pieces = new ArrayList<>();
        List<long[]> holes = new ArrayList<>();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            int index = 0;
            for (long offset = 0; offset < size; offset += 2 * MIB, index++) {
                int length = (int) Math.min(2 * MIB, size - offset);
                if (index % 3 == 1) {
                    holes.add(new long[] {offset, length});
                    continue;
                }
                byte[] data = GuestSnapshot.random(length, index);
                Arrays.fill(data, Math.min(4096, length), Math.min(3 * 4096, length), (byte) 0);
                raf.seek(offset);
                raf.write(data);
                pieces.add(new Piece(offset, data));
            }
        }
        Manifest.FileEntry entry = new Manifest.FileEntry("chv/memory-ranges", size, MemoryPageDigest.of(file), MemoryPageDigest.ALGORITHM);
        Collections.reverse(pieces); // the worst order: everything waits for the first piece

        PlacedFileDigest digest = PlacedFileDigest.of(entry, file);
        for (long[] hole : holes) {
            digest.hole(hole[0], hole[1]);
        }
        for (Piece piece : pieces) {
            digest.placed(piece.offset(), piece.data(), piece.data().length);
        }

        assertThat(pieces.size() * 2L * MIB).isGreaterThan(PlacedFileDigest.MAX_WAITING_BYTES);
        assertThat(digest.finish()).contains(entry.sha256());
    }

    @Test
    void contentPlacedInShuffledUnevenPiecesDigestsLikeTheFile() throws IOException {
        byte[] content = GuestSnapshot.random(9 * MIB + 123, 7);
        Path file = Files.write(dir.resolve("durable.tar"), content);
        List<Piece> pieces = new ArrayList<>();
        Random random = new Random(3);
        for (int offset = 0; offset < content.length;) {
            int length = Math.min(content.length - offset, 1 + random.nextInt(700_000));
            pieces.add(new Piece(offset, Arrays.copyOfRange(content, offset, offset + length)));
            offset += length;
        }
        Collections.shuffle(pieces, random);
        Manifest.FileEntry entry = new Manifest.FileEntry("durable.tar", content.length,
                HexFormat.of().formatHex(ChunkHash.sha256().digest(content)));

        PlacedFileDigest digest = PlacedFileDigest.of(entry, file);
        for (Piece piece : pieces) {
            digest.placed(piece.offset(), piece.data(), piece.data().length);
        }

        assertThat(digest.finish()).contains(entry.sha256());
    }

    @Test
    void aFileWithAGapHasNoDigestSoTheVerificationReadsIt() throws IOException {
        byte[] content = GuestSnapshot.random(3000, 1);
        Path file = Files.write(dir.resolve("state.json"), content);
        PlacedFileDigest digest = PlacedFileDigest.of(new Manifest.FileEntry("chv/state.json", 3000, "00"), file);
        digest.placed(0, Arrays.copyOf(content, 1000), 1000);
        digest.placed(2000, Arrays.copyOfRange(content, 2000, 3000), 1000);

        assertThat(digest.finish()).isEmpty();
    }
}
