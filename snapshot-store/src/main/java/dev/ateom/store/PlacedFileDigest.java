package dev.ateom.store;

import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.MemoryPageDigest;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The local-manifest digest of one file a pull assembles, computed from its verified chunks while the workers place
 * them, so the assembled file is not read and hashed again afterwards. Pieces arrive in any order; whichever worker
 * hands over the piece the digest needs next hashes it and every waiting piece after it, in file order. A piece that
 * would have to wait while {@link #MAX_WAITING_BYTES} already wait is not held: it is read back from the staged file
 * when its turn comes (it was written there before it was handed over), so memory stays bounded whatever the
 * manifest's order.
 */
final class PlacedFileDigest {
    static final long MAX_WAITING_BYTES = 32L << 20;

    /** Bytes in file order: sha256 of the content, or the page digest of guest memory. */
    private interface Hasher {
        void update(byte[] data, int from, int length);

        void zeros(long length);

        String finish();
    }

    /** {@code data == null}: a hole ({@code hole}) or bytes to read back from the staged file. */
    private record Piece(long offset, int length, byte[] data, boolean hole) {
    }

    private final Path file;
    private final long size;
    private final Hasher hasher;
    private final TreeMap<Long, Piece> waiting = new TreeMap<>();
    private long next;
    private long waitingBytes;
    private boolean draining;

    private PlacedFileDigest(Path file, long size, Hasher hasher) {
        this.file = file;
        this.size = size;
        this.hasher = hasher;
    }

    /** For the staged {@code file} of this manifest entry, hashed the way the entry names its digest. */
    static PlacedFileDigest of(Manifest.FileEntry entry, Path file) {
        Hasher hasher = MemoryPageDigest.ALGORITHM.equals(entry.digest()) ? pageHasher() : contentHasher();
        return new PlacedFileDigest(file, entry.size(), hasher);
    }

    /** A hole of the remote manifest: zeros, nothing to wait for. */
    void hole(long offset, long length) throws IOException {
        for (long at = offset; at < offset + length; at += Integer.MAX_VALUE) {
            offer(new Piece(at, (int) Math.min(Integer.MAX_VALUE, offset + length - at), null, true));
        }
    }

    /** {@code data[0, length)}, verified and already written at {@code offset} of the staged file. */
    void placed(long offset, byte[] data, int length) throws IOException {
        offer(new Piece(offset, length, data, false));
    }

    /**
     * The digest, once every byte of the file was handed over; empty if some were not (a manifest that does not
     * tile its file, or sizes that differ: the caller's verification then reads the file and names the problem).
     */
    Optional<String> finish() {
        synchronized (this) {
            if (next != size || !waiting.isEmpty()) {
                return Optional.empty();
            }
        }
        return Optional.of(hasher.finish());
    }

    private void offer(Piece piece) throws IOException {
        synchronized (this) {
            Piece held = piece;
            if (piece.data() != null) {
                if (piece.offset() != next && waitingBytes + piece.length() > MAX_WAITING_BYTES) {
                    held = new Piece(piece.offset(), piece.length(), null, false); // read back when its turn comes
                } else {
                    waitingBytes += piece.length();
                }
            }
            if (waiting.putIfAbsent(held.offset(), held) != null) {
                throw new IOException("pulled " + file.getFileName() + " got two pieces at offset " + held.offset());
            }
            if (draining) {
                return; // the worker draining this file will reach it
            }
            draining = true;
        }
        drain();
    }

    /** Hashes pieces in file order until the next one has not arrived; only one worker drains at a time. */
    private void drain() throws IOException {
        while (true) {
            Piece piece;
            synchronized (this) {
                piece = waiting.remove(next);
                if (piece == null) {
                    draining = false;
                    return;
                }
            }
            try {
                if (piece.hole()) {
                    hasher.zeros(piece.length());
                } else if (piece.data() != null) {
                    hasher.update(piece.data(), 0, piece.length());
                } else {
                    byte[] back = readBack(piece);
                    hasher.update(back, 0, back.length);
                }
            } catch (IOException | RuntimeException | Error e) {
                synchronized (this) {
                    draining = false;
                }
                throw e;
            }
            synchronized (this) {
                next = piece.offset() + piece.length();
                if (piece.data() != null) {
                    waitingBytes -= piece.length();
                }
            }
        }
    }

    private byte[] readBack(Piece piece) throws IOException {
        byte[] data = new byte[piece.length()];
        ByteBuffer buffer = ByteBuffer.wrap(data);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, piece.offset() + buffer.position()) < 0) {
                    throw new EOFException(file + " ends before byte " + (piece.offset() + piece.length()));
                }
            }
        }
        return data;
    }

    private static Hasher contentHasher() {
        MessageDigest digest = ChunkHash.sha256();
        return new Hasher() {
            private final byte[] zeros = new byte[64 * 1024];

            @Override
            public void update(byte[] data, int from, int length) {
                digest.update(data, from, length);
            }

            @Override
            public void zeros(long length) {
                for (long left = length; left > 0; left -= zeros.length) {
                    digest.update(zeros, 0, (int) Math.min(zeros.length, left));
                }
            }

            @Override
            public String finish() {
                return HexFormat.of().formatHex(digest.digest());
            }
        };
    }

    private static Hasher pageHasher() {
        MemoryPageDigest.Incremental digest = new MemoryPageDigest.Incremental();
        return new Hasher() {
            @Override
            public void update(byte[] data, int from, int length) {
                digest.update(data, from, length);
            }

            @Override
            public void zeros(long length) {
                digest.zeros(length);
            }

            @Override
            public String finish() {
                return digest.finish();
            }
        };
    }
}
