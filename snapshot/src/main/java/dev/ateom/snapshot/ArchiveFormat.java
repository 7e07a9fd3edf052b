package dev.ateom.snapshot;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;

/**
 * The PAX keys durable.tar uses beyond plain POSIX tar.
 * <ul>
 * <li>{@code SCHILY.xattr.<name>} (as GNU tar writes it) for xattr values that are valid UTF-8, and
 * {@code LIBARCHIVE.xattr.<name>} with base64 (as bsdtar writes it) for binary ones.</li>
 * <li>{@code ATEOM.sparse.realsize} and {@code ATEOM.sparse.map} ("offset,length,..." of the data
 * extents) for sparse files: the entry's data is those extents back to back. GNU's own PAX sparse
 * formats are not used because Commons Compress 1.28 reads their sizes as int (files &gt; 2 GiB
 * fail); GNU tar extracts such an entry as its concatenated data.</li>
 * <li>{@code ATEOM.mtime} ("seconds.nanoseconds") when the mtime has nanoseconds that the standard
 * {@code mtime} key as Commons Compress writes it (100 ns steps) would lose.</li>
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

    static Optional<String> exactMtime(FileTime time) {
        Instant instant = time.toInstant();
        if (instant.getNano() % 100 == 0) {
            return Optional.empty();
        }
        return Optional.of(instant.getEpochSecond() + "." + String.format("%09d", instant.getNano()));
    }

    static FileTime mtime(TarArchiveEntry entry) {
        String exact = entry.getExtraPaxHeaders().get(EXACT_MTIME);
        if (exact != null) {
            try {
                BigDecimal seconds = new BigDecimal(exact);
                long whole = seconds.setScale(0, RoundingMode.FLOOR).longValueExact();
                long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue();
                return FileTime.from(Instant.ofEpochSecond(whole, nanos));
            } catch (ArithmeticException | NumberFormatException e) {
                // fall back to the standard mtime
            }
        }
        return entry.getLastModifiedTime();
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

    /** PAX key and value for one xattr. */
    static Map.Entry<String, String> encodeXattr(String name, byte[] value) {
        Optional<String> text = strictUtf8(value);
        if (text.isPresent() && text.get().indexOf('\0') < 0) {
            return Map.entry(SCHILY_XATTR + name, text.get());
        }
        return Map.entry(LIBARCHIVE_XATTR + percentEncode(name), Base64.getEncoder().encodeToString(value));
    }

    /** The xattr a PAX header carries, or empty when the key is not an xattr key. */
    static Optional<Map.Entry<String, byte[]>> decodeXattr(String key, String value) {
        if (key.startsWith(SCHILY_XATTR)) {
            return Optional.of(Map.entry(key.substring(SCHILY_XATTR.length()), value.getBytes(StandardCharsets.UTF_8)));
        }
        if (key.startsWith(LIBARCHIVE_XATTR)) {
            String name = URLDecoder.decode(key.substring(LIBARCHIVE_XATTR.length()), StandardCharsets.UTF_8);
            return Optional.of(Map.entry(name, Base64.getDecoder().decode(value)));
        }
        return Optional.empty();
    }

    private static Optional<String> strictUtf8(byte[] value) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(value)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static String percentEncode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
