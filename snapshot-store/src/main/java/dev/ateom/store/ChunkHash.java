package dev.ateom.store;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** The SHA-256 of a chunk's plain (uncompressed) bytes, lowercase hex: the chunk's name in the store. */
public record ChunkHash(String hex) {
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

    public ChunkHash {
        if (!isValid(hex)) {
            throw new IllegalArgumentException("'" + hex + "' is not a lowercase hex SHA-256");
        }
    }

    public static boolean isValid(String hex) {
        return hex != null && HEX.matcher(hex).matches();
    }

    public static ChunkHash of(byte[] data, int offset, int length) {
        MessageDigest digest = sha256();
        digest.update(data, offset, length);
        return new ChunkHash(HexFormat.of().formatHex(digest.digest()));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return hex;
    }
}
