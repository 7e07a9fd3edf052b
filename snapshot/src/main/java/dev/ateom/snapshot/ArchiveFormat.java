package dev.ateom.snapshot;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The PAX keys durable.tar uses beyond plain POSIX tar.
 * <ul>
 * <li>{@code SCHILY.xattr.<name>} (as GNU tar writes it) for xattr values that are valid UTF-8, and
 * {@code LIBARCHIVE.xattr.<name>} with base64 (as bsdtar writes it) for binary ones.</li>
 * <li>{@code ATEOM.sparse.realsize} and {@code ATEOM.sparse.map} ("offset,length,..." of the data
 * extents) for sparse files: the entry's data is those extents back to back. GNU's own PAX sparse
 * formats are not used because Commons Compress 1.28 reads their sizes as int (files &gt; 2 GiB
 * fail); GNU tar extracts such an entry as its concatenated data.</li>
 * <li>{@code ATEOM.mtime} ("seconds.nanoseconds"): read only, from archives written before durable.tar
 * had its own writer (Commons Compress wrote {@code mtime} in 100 ns steps); the standard {@code mtime}
 * record now carries nanoseconds.</li>
 * </ul>
 */
final class ArchiveFormat {
    static final String SPARSE_REALSIZE = "ATEOM.sparse.realsize";
    static final String SPARSE_MAP = "ATEOM.sparse.map";
    static final String EXACT_MTIME = "ATEOM.mtime";
    static final String SCHILY_XATTR = "SCHILY.xattr.";
    static final String LIBARCHIVE_XATTR = "LIBARCHIVE.xattr.";

    private ArchiveFormat() {
    }

    /** PAX time: seconds, with nine fraction digits when there are nanoseconds. */
    static String paxTime(long seconds, int nanos) {
        if (nanos == 0) {
            return Long.toString(seconds);
        }
        return BigDecimal.valueOf(seconds).add(BigDecimal.valueOf(nanos, 9)).toPlainString();
    }

    /** {seconds, nanoseconds} of a PAX time ("123", "123.4", "-1.5"), or null when it is not one. */
    static long[] parsePaxTime(String value) {
        try {
            BigDecimal seconds = new BigDecimal(value);
            long whole = seconds.setScale(0, RoundingMode.FLOOR).longValueExact();
            long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue();
            return new long[] {whole, nanos};
        } catch (ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    /** The entry's mtime: {@code ATEOM.mtime} (older archives, written by Commons Compress) wins over the standard one. */
    static long[] mtime(TarEntry entry) {
        byte[] exact = entry.extensions().get(EXACT_MTIME);
        if (exact != null) {
            long[] time = parsePaxTime(new String(exact, StandardCharsets.US_ASCII));
            if (time != null) {
                return time;
            }
        }
        return new long[] {entry.mtimeSeconds(), entry.mtimeNanos()};
    }

    static String encodeMap(List<Extent> extents) {
        StringBuilder map = new StringBuilder();
        for (Extent extent : extents) {
            if (!map.isEmpty()) {
                map.append(',');
            }
            map.append(extent.offset()).append(',').append(extent.length());
        }
        return map.toString();
    }

    static List<Extent> decodeMap(String entryName, String map, long realSize, long dataSize) throws UnsafeArchiveEntryException {
        List<Extent> extents = new ArrayList<>();
        if (map.isEmpty()) {
            return extents;
        }
        String[] numbers = map.split(",", -1);
        if (numbers.length % 2 != 0) {
            throw new UnsafeArchiveEntryException(entryName, "sparse map has an odd number of values");
        }
        long previousEnd = 0;
        long total = 0;
        try {
            for (int i = 0; i < numbers.length; i += 2) {
                Extent extent = new Extent(Long.parseLong(numbers[i]), Long.parseLong(numbers[i + 1]));
                if (extent.offset() < previousEnd || extent.end() > realSize || extent.end() < extent.offset()) {
                    throw new UnsafeArchiveEntryException(entryName, "sparse map extent " + extent + " out of order or beyond " + realSize);
                }
                extents.add(extent);
                previousEnd = extent.end();
                total += extent.length();
            }
        } catch (IllegalArgumentException e) {
            throw new UnsafeArchiveEntryException(entryName, "sparse map is not numbers: " + e.getMessage());
        }
        if (total != dataSize) {
            throw new UnsafeArchiveEntryException(entryName, "sparse map covers " + total + " bytes but the entry holds " + dataSize);
        }
        return extents;
    }

    /** PAX key and value for one xattr (name and value as the kernel gives them). */
    static Map.Entry<String, byte[]> encodeXattr(byte[] name, byte[] value) {
        Optional<String> text = strictUtf8(value);
        Optional<String> textName = strictUtf8(name);
        if (textName.isPresent() && textName.get().indexOf('=') < 0 && text.isPresent() && text.get().indexOf('\0') < 0) {
            return Map.entry(SCHILY_XATTR + textName.get(), value);
        }
        return Map.entry(LIBARCHIVE_XATTR + percentEncode(name), Base64.getEncoder().encode(value));
    }

    /** The xattr (name, value) a PAX record carries, or empty when the key is not an xattr key. */
    static Optional<Map.Entry<byte[], byte[]>> decodeXattr(String key, byte[] value) {
        if (key.startsWith(SCHILY_XATTR)) {
            return Optional.of(Map.entry(key.substring(SCHILY_XATTR.length()).getBytes(StandardCharsets.UTF_8), value));
        }
        if (key.startsWith(LIBARCHIVE_XATTR)) {
            try {
                return Optional.of(Map.entry(percentDecode(key.substring(LIBARCHIVE_XATTR.length())), Base64.getDecoder().decode(value)));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    static Optional<String> strictUtf8(byte[] value) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(value)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** Like URL encoding (as bsdtar writes it): unreserved ASCII stays, every other byte is %XX. */
    private static String percentEncode(byte[] name) {
        StringBuilder out = new StringBuilder();
        for (byte b : name) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '*') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16))).append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }

    private static byte[] percentDecode(String text) {
        ByteArrayBuilder out = new ByteArrayBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length()) {
                out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 2;
            } else if (c == '+') {
                out.write(' ');
            } else {
                out.write(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }
}
