package dev.ateom.snapshot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of a file's content, streamed. */
final class Sha256 {
    private static final int CHUNK = 1 << 20;

    private Sha256() {
    }

    static String of(Path file) throws IOException {
        MessageDigest digest = newDigest();
        try (FileChannel channel = SafeOpen.regularFile(file)) {
            ByteBuffer buffer = ByteBuffer.allocate(ReadBufferSize.forContent(channel.size(), CHUNK));
            while (channel.read(buffer.clear()) >= 0) {
                digest.update(buffer.array(), 0, buffer.position());
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }
}
