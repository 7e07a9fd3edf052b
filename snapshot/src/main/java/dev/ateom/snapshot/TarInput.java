package dev.ateom.snapshot;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a tar stream (POSIX ustar with PAX headers, GNU tar's long names) keeping every name as raw
 * bytes: a PAX {@code path} record, a GNU {@code L} record and a ustar name field are all taken
 * byte for byte, whatever {@code hdrcharset} says, so no name is ever decoded. Header checksums are
 * checked; a stream that ends inside an entry fails. GNU's sparse formats are refused (durable.tar
 * uses its own {@code ATEOM.sparse} keys).
 */
final class TarInput implements AutoCloseable {
    static final byte[] USTAR_MAGIC = {'u', 's', 't', 'a', 'r', 0};
    private static final byte[] GNU_MAGIC = {'u', 's', 't', 'a', 'r', ' ', ' ', 0};
    /** A PAX or GNU long-name record bigger than this is not a name: refused instead of held in memory. */
    private static final int MAX_META_BYTES = 1 << 20;

    private final InputStream in;
    private final byte[] block = new byte[TarOutput.BLOCK];
    private final InputStream content = new EntryContent();
    private long remaining;
    private long padding;
    private boolean ended;

    TarInput(InputStream in) {
        this.in = in;
    }

    /** The next entry, or null at the end of the archive; skips whatever of the previous entry's data was not read. */
    TarEntry next() throws IOException {
        if (ended) {
            return null;
        }
        in.skipNBytes(remaining + padding);
        remaining = 0;
        padding = 0;
        Map<String, byte[]> pax = new HashMap<>();
        byte[] longName = null;
        byte[] longLink = null;
        while (true) {
            if (!readBlock()) {
                ended = true;
                if (!pax.isEmpty() || longName != null || longLink != null) {
                    throw new EOFException("tar archive ends after an extended header");
                }
                return null;
            }
            if (isZero(block)) {
                ended = true;
                return null;
            }
            checkChecksum();
            long size = number(124, 12);
            byte type = block[156];
            switch (type) {
                case 'x' -> parsePax(readMeta(size), pax);
                case 'g' -> readMeta(size); // global defaults: durable.tar has none, GNU tar writes none by default
                case 'L' -> longName = trimNul(readMeta(size));
                case 'K' -> longLink = trimNul(readMeta(size));
                case 'S' -> throw new UnsafeArchiveEntryException(ByteNames.display(field(0, 100)),
                        "GNU sparse entry (old format) is not supported");
                default -> {
                    return entry(type, size, pax, longName, longLink);
                }
            }
        }
    }

    /** The current entry's data (for a sparse entry: its extents back to back); ends with the entry. */
    InputStream content() {
        return content;
    }

    /** Whether {@link #contentRegion} can answer: the archive is a plain file, not a stream. */
    boolean hasRegions() {
        return in instanceof ArchiveFileInput;
    }

    /**
     * The next {@code length} bytes of the current entry's data as a region of the archive file, skipped
     * here (only when {@link #hasRegions()}); fails if the entry or the file has fewer.
     */
    FileRegion contentRegion(long length) throws IOException {
        if (!(in instanceof ArchiveFileInput file)) {
            throw new IllegalStateException("a compressed archive has no file regions");
        }
        if (length > remaining) {
            throw new EOFException("tar entry has " + remaining + " bytes of data left, not " + length);
        }
        FileRegion region = file.region(length);
        remaining -= length;
        return region;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private TarEntry entry(byte type, long headerSize, Map<String, byte[]> pax, byte[] longName, byte[] longLink) throws IOException {
        byte[] name = field(0, 100);
        if (Arrays.equals(block, 257, 263, USTAR_MAGIC, 0, 6)) {
            byte[] prefix = field(345, 155);
            if (prefix.length > 0) {
                byte[] joined = Arrays.copyOf(prefix, prefix.length + 1 + name.length);
                joined[prefix.length] = '/';
                System.arraycopy(name, 0, joined, prefix.length + 1, name.length);
                name = joined;
            }
        } else if (!Arrays.equals(block, 257, 265, GNU_MAGIC, 0, 8) && !isZero(Arrays.copyOfRange(block, 257, 263))) {
            throw new IOException("not a tar archive (unknown header magic)");
        }
        byte[] linkName = field(157, 100);
        name = pax.containsKey("path") ? pax.remove("path") : longName != null ? longName : name;
        linkName = pax.containsKey("linkpath") ? pax.remove("linkpath") : longLink != null ? longLink : linkName;
        String shownName = ByteNames.display(name);
        for (String key : pax.keySet()) {
            if (key.startsWith("GNU.sparse.")) {
                throw new UnsafeArchiveEntryException(shownName, "GNU sparse entry (PAX format) is not supported");
            }
        }
        long size = paxNumber(pax.remove("size"), headerSize, shownName, "size");
        long uid = paxNumber(pax.remove("uid"), number(108, 8), shownName, "uid");
        long gid = paxNumber(pax.remove("gid"), number(116, 8), shownName, "gid");
        long mtimeSeconds = number(136, 12);
        int mtimeNanos = 0;
        byte[] paxMtime = pax.remove("mtime");
        if (paxMtime != null) {
            long[] time = ArchiveFormat.parsePaxTime(new String(paxMtime, StandardCharsets.US_ASCII));
            if (time == null) {
                throw new UnsafeArchiveEntryException(shownName, "PAX mtime is not a number");
            }
            mtimeSeconds = time[0];
            mtimeNanos = (int) time[1];
        }
        for (String ignored : new String[] {"hdrcharset", "atime", "ctime", "uname", "gname", "comment", "charset"}) {
            pax.remove(ignored);
        }
        if (size < 0) {
            throw new UnsafeArchiveEntryException(shownName, "negative size");
        }
        int mode = (int) number(100, 8);
        boolean hasData = type != TarEntry.HARD_LINK && type != TarEntry.SYMLINK && type != TarEntry.DIRECTORY
                && type != TarEntry.CHAR_DEVICE && type != TarEntry.BLOCK_DEVICE && type != TarEntry.FIFO;
        remaining = hasData ? size : 0;
        padding = (TarOutput.BLOCK - remaining % TarOutput.BLOCK) % TarOutput.BLOCK;
        return new TarEntry(name, type, mode, uid, gid, remaining, mtimeSeconds, mtimeNanos, linkName, pax);
    }

    private static long paxNumber(byte[] value, long fallback, String entry, String key) throws UnsafeArchiveEntryException {
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw new UnsafeArchiveEntryException(entry, "PAX " + key + " is not a number");
        }
    }

    private boolean readBlock() throws IOException {
        int read = in.readNBytes(block, 0, TarOutput.BLOCK);
        if (read == 0) {
            return false;
        }
        if (read < TarOutput.BLOCK) {
            throw new EOFException("tar archive ends inside a header");
        }
        return true;
    }

    private byte[] readMeta(long size) throws IOException {
        if (size < 0 || size > MAX_META_BYTES) {
            throw new IOException("tar extended header of " + size + " bytes (at most " + MAX_META_BYTES + " accepted)");
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) {
            throw new EOFException("tar archive ends inside an extended header");
        }
        in.skipNBytes((TarOutput.BLOCK - size % TarOutput.BLOCK) % TarOutput.BLOCK);
        return data;
    }

    /** "length key=value\n" records; later ones win, as POSIX says. */
    private static void parsePax(byte[] data, Map<String, byte[]> pax) throws IOException {
        int offset = 0;
        while (offset < data.length) {
            int space = offset;
            while (space < data.length && data[space] != ' ') {
                space++;
            }
            int length;
            try {
                length = Integer.parseInt(new String(data, offset, space - offset, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw new IOException("corrupt PAX header: record length is not a number");
            }
            int end = offset + length;
            if (length <= 0 || end > data.length || data[end - 1] != '\n') {
                throw new IOException("corrupt PAX header: bad record length " + length);
            }
            int equals = space + 1;
            while (equals < end && data[equals] != '=') {
                equals++;
            }
            if (equals >= end) {
                throw new IOException("corrupt PAX header: record without '='");
            }
            String key = new String(data, space + 1, equals - space - 1, StandardCharsets.UTF_8);
            pax.put(key, Arrays.copyOfRange(data, equals + 1, end - 1));
            offset = end;
        }
    }

    private void checkChecksum() throws IOException {
        long unsigned = 0;
        long signed = 0;
        for (int i = 0; i < TarOutput.BLOCK; i++) {
            int b = i >= 148 && i < 156 ? ' ' : block[i];
            unsigned += b & 0xff;
            signed += b;
        }
        long stored = number(148, 8);
        if (stored != unsigned && stored != signed) {
            throw new IOException("corrupt tar header (checksum " + stored + ", computed " + unsigned + ")");
        }
    }

    /** Octal (space/NUL terminated) or GNU base-256 (high bit of the first byte set). */
    private long number(int offset, int width) throws IOException {
        if ((block[offset] & 0x80) != 0) {
            boolean negative = (block[offset] & 0x40) != 0;
            long value = negative ? -1 : 0;
            value = (value << 6) | (block[offset] & 0x3f);
            for (int i = offset + 1; i < offset + width; i++) {
                if (!negative && (value >>> 55) != 0) {
                    throw new IOException("tar header number overflows");
                }
                value = (value << 8) | (block[i] & 0xff);
            }
            return value;
        }
        long value = 0;
        int i = offset;
        int end = offset + width;
        while (i < end && (block[i] == ' ' || block[i] == 0)) {
            i++;
        }
        for (; i < end && block[i] >= '0' && block[i] <= '7'; i++) {
            value = (value << 3) | (block[i] - '0');
        }
        if (i < end && block[i] != ' ' && block[i] != 0) {
            throw new IOException("corrupt tar header: bad octal number at offset " + offset);
        }
        return value;
    }

    private byte[] field(int offset, int width) {
        int end = offset;
        while (end < offset + width && block[end] != 0) {
            end++;
        }
        return Arrays.copyOfRange(block, offset, end);
    }

    private static byte[] trimNul(byte[] data) {
        int end = data.length;
        while (end > 0 && data[end - 1] == 0) {
            end--;
        }
        return Arrays.copyOf(data, end);
    }

    private static boolean isZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** The current entry's data; reading past it answers end of stream, a short archive an EOFException. */
    private final class EntryContent extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int read = in.read(buffer, offset, (int) Math.min(length, remaining));
            if (read < 0) {
                throw new EOFException("tar archive ends inside an entry's data");
            }
            remaining -= read;
            return read;
        }
    }
}
