package dev.ateom.snapshot;

import java.util.Arrays;

/** A growable byte array (ByteArrayOutputStream without its locking and checked signatures). */
final class ByteArrayBuilder {
    private byte[] bytes = new byte[256];
    private int length;

    void write(int b) {
        ensure(1);
        bytes[length++] = (byte) b;
    }

    void write(byte[] data) {
        write(data, 0, data.length);
    }

    void write(byte[] data, int from, int count) {
        ensure(count);
        System.arraycopy(data, from, bytes, length, count);
        length += count;
    }

    int length() {
        return length;
    }

    /** Forgets everything after the first {@code newLength} bytes. */
    void truncate(int newLength) {
        length = newLength;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
