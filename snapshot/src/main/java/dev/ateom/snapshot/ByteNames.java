package dev.ateom.snapshot;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * File names as Linux has them: bytes, any but '/' and NUL. They are never decoded to pick a file;
 * {@link #display} renders them for messages (UTF-8, other bytes as {@code \xNN}).
 */
final class ByteNames {
    static final byte[] DOT_DOT = {'.', '.'};

    private ByteNames() {
    }

    /** How the JDK turns a {@code Path} into bytes (sun.jnu.encoding), to name the same file natively. */
    static Charset pathCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? Charset.defaultCharset() : Charset.forName(name);
        } catch (IllegalArgumentException e) {
            return Charset.defaultCharset();
        }
    }

    /** The name with the NUL terminator libc expects. */
    static byte[] c(byte[] name) {
        return Arrays.copyOf(name, name.length + 1);
    }

    static byte[] c(byte[] buffer, int from, int to) {
        byte[] name = new byte[to - from + 1];
        System.arraycopy(buffer, from, name, 0, to - from);
        return name;
    }

    static boolean isUtf8(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return strictUtf8(bytes);
            }
        }
        return true;
    }

    private static boolean strictUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** For messages only: valid UTF-8 as text, every other byte (and control characters) as {@code \xNN}. */
    static String display(byte[] bytes) {
        return display(bytes, 0, bytes.length);
    }

    static String display(byte[] bytes, int from, int to) {
        StringBuilder text = new StringBuilder(to - from);
        int i = from;
        while (i < to) {
            int b = bytes[i] & 0xff;
            int length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
            if (length == 1 && b >= 0x20 && b != 0x7f && b != '\\') {
                text.append((char) b);
                i++;
            } else if (length > 1 && i + length <= to && strictUtf8(Arrays.copyOfRange(bytes, i, i + length))) {
                text.append(new String(bytes, i, length, StandardCharsets.UTF_8));
                i += length;
            } else {
                text.append(String.format("\\x%02x", b));
                i++;
            }
        }
        return text.toString();
    }
}
