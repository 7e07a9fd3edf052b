package dev.ateom.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a probe object the way a push writes chunks and reads it back byte for byte: a store that keeps anything else
 * (the aws-chunked framing of a streamed upload, a truncated or padded body) would damage every snapshot pushed to it,
 * and that would show only when another host needs one. The object is bigger than two of the SDK's 128 KiB signing
 * chunks and holds CR LF pairs and bytes of every value. It is deleted afterwards.
 */
final class RoundTripProbe {
    static final int SIZE = 300 * 1024;

    private final S3Objects objects;
    private final StoreKeys keys;

    RoundTripProbe(S3Objects objects, StoreKeys keys) {
        this.objects = objects;
        this.keys = keys;
    }

    /** @throws StoreDamagesDataException the object came back different (says how) */
    void run() throws StoreException {
        byte[] written = content();
        String key = keys.probe(HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()) + "-round-trip");
        try {
            objects.put(key, written);
            Optional<byte[]> read = objects.get(key, 2L * SIZE);
            if (read.isEmpty()) {
                throw new StoreDamagesDataException("the store does not keep what is written to it: probe object " + key
                        + " was gone right after it was written");
            }
            String difference = difference(written, read.get());
            if (difference != null) {
                throw new StoreDamagesDataException("the store does not give back what is written to it: probe object " + key
                        + " of " + written.length + " bytes " + difference + "; every snapshot pushed to it would be damaged");
            }
        } finally {
            objects.delete(key);
        }
    }

    /** How {@code read} differs from {@code written}, or null when it does not. */
    static String difference(byte[] written, byte[] read) {
        int at = Arrays.mismatch(written, read);
        if (at < 0) {
            return null;
        }
        String seen = new String(read, at, Math.min(48, read.length - at), StandardCharsets.ISO_8859_1).replaceAll("[^\\x20-\\x7e]", ".");
        return "came back as " + read.length + " bytes, first different at byte " + at + (seen.isEmpty() ? "" : " ('" + seen + "')");
    }

    private static byte[] content() {
        byte[] content = new byte[SIZE];
        ThreadLocalRandom.current().nextBytes(content);
        for (int i = 0; i < 256; i++) {
            content[i] = (byte) i;
        }
        for (int i = 256; i < 1024; i += 2) {
            content[i] = '\r';
            content[i + 1] = '\n';
        }
        return content;
    }
}
