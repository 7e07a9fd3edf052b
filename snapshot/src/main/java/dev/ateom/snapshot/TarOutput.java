package dev.ateom.snapshot;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a POSIX (PAX) tar stream with names as raw bytes. Headers and file content go through one
 * native buffer: content is read() straight into it from the file's descriptor and the buffer is
 * written out when full, so there is no copy in Java and few system calls for small files.
 * Names and link targets that do not fit ustar's 100 bytes go into PAX {@code path}/{@code linkpath}
 * records; when one of those is not valid UTF-8, the header also says {@code hdrcharset=BINARY}
 * (POSIX's marker for raw bytes), so no name is ever re-encoded.
 */
final class TarOutput implements AutoCloseable {
    static final int BLOCK = 512;
    private static final int RECORD = 20 * BLOCK;
    private static final long MAX_OCTAL_11 = 077777777777L;
    private static final long MAX_OCTAL_7 = 07777777L;
    private static final byte[] PAX_NAME = "././@PaxHeader".getBytes(StandardCharsets.US_ASCII);

    private final WritableByteChannel channel;
    private final Memory memory;
    private final ByteBuffer view;
    private final int capacity;
    private final byte[] header = new byte[BLOCK];
    private int position;
    private long streamed;

    TarOutput(WritableByteChannel channel, int capacity) {
        this.channel = channel;
        this.capacity = capacity;
        this.memory = new Memory(capacity);
        this.view = memory.getByteBuffer(0, capacity);
    }

    void putHeader(TarEntry entry) throws IOException {
        Map<String, byte[]> pax = new LinkedHashMap<>();
        boolean binary = false;
        if (entry.name().length > 100) {
            pax.put("path", entry.name());
            binary = !ByteNames.isUtf8(entry.name());
        }
        if (entry.linkName().length > 100) {
            pax.put("linkpath", entry.linkName());
            binary |= !ByteNames.isUtf8(entry.linkName());
        }
        if (entry.size() > MAX_OCTAL_11) {
            pax.put("size", ascii(Long.toString(entry.size())));
        }
        if (entry.uid() > MAX_OCTAL_7) {
            pax.put("uid", ascii(Long.toString(entry.uid())));
        }
        if (entry.gid() > MAX_OCTAL_7) {
            pax.put("gid", ascii(Long.toString(entry.gid())));
        }
        if (entry.mtimeNanos() != 0 || entry.mtimeSeconds() < 0 || entry.mtimeSeconds() > MAX_OCTAL_11) {
            pax.put("mtime", ascii(ArchiveFormat.paxTime(entry.mtimeSeconds(), entry.mtimeNanos())));
        }
        pax.putAll(entry.extensions());
        if (!pax.isEmpty()) {
            byte[] records = paxRecords(binary, pax);
            fillHeader(PAX_NAME, (byte) 'x', 0644, 0, 0, records.length, Math.max(0, Math.min(entry.mtimeSeconds(), MAX_OCTAL_11)), TarEntry.NO_LINK);
            putBytes(header, 0, BLOCK);
            putBytes(records, 0, records.length);
            pad(records.length);
        }
        fillHeader(entry.name(), entry.type(), entry.mode(), entry.uid() > MAX_OCTAL_7 ? 0 : entry.uid(),
                entry.gid() > MAX_OCTAL_7 ? 0 : entry.gid(), entry.size() > MAX_OCTAL_11 ? 0 : entry.size(),
                entry.mtimeSeconds() < 0 || entry.mtimeSeconds() > MAX_OCTAL_11 ? 0 : entry.mtimeSeconds(), entry.linkName());
        putBytes(header, 0, BLOCK);
    }

    /** Appends {@code length} bytes read from {@code fd} at {@code offset}; fails if the file is shorter. */
    void putContent(int fd, long offset, long length, String what) throws IOException {
        long done = 0;
        while (done < length) {
            if (position == capacity) {
                flush();
            }
            long want = Math.min(capacity - position, length - done);
            long read;
            try {
                read = LibC.pread(fd, memory.share(position), want, offset + done);
            } catch (LastErrorException e) {
                throw new NativeCallException("pread", what, e);
            }
            if (read <= 0) {
                throw new IOException(what + " shrank while being archived (ended at " + (offset + done) + ", expected "
                        + (offset + length) + ")");
            }
            position += (int) read;
            done += read;
        }
    }

    /** Zeros up to the next block boundary after an entry of {@code size} data bytes. */
    void pad(long size) throws IOException {
        int rest = (int) (size % BLOCK);
        if (rest != 0) {
            putZeros(BLOCK - rest);
        }
    }

    /** The end-of-archive marker (two zero blocks) and zeros up to a full 10 KiB record, as tar writes it. */
    void finish() throws IOException {
        putZeros(2 * BLOCK);
        long total = streamed + position;
        putZeros((int) ((RECORD - total % RECORD) % RECORD));
        flush();
    }

    @Override
    public void close() {
        memory.close();
    }

    private void fillHeader(byte[] name, byte type, int mode, long uid, long gid, long size, long mtime, byte[] linkName) {
        Arrays.fill(header, (byte) 0);
        System.arraycopy(name, 0, header, 0, Math.min(100, name.length));
        octal(mode & 07777, 100, 8);
        octal(uid, 108, 8);
        octal(gid, 116, 8);
        octal(size, 124, 12);
        octal(mtime, 136, 12);
        header[156] = type;
        System.arraycopy(linkName, 0, header, 157, Math.min(100, linkName.length));
        System.arraycopy(TarInput.USTAR_MAGIC, 0, header, 257, 6);
        header[263] = '0';
        header[264] = '0';
        Arrays.fill(header, 148, 156, (byte) ' ');
        int sum = 0;
        for (byte b : header) {
            sum += b & 0xff;
        }
        octal(sum, 148, 7);
        header[155] = ' ';
    }

    /** {@code width - 1} octal digits, zero-padded, then NUL. */
    private void octal(long value, int offset, int width) {
        long rest = value;
        for (int i = offset + width - 2; i >= offset; i--) {
            header[i] = (byte) ('0' + (rest & 7));
            rest >>>= 3;
        }
        header[offset + width - 1] = 0;
    }

    static byte[] paxRecords(boolean binary, Map<String, byte[]> pax) {
        ByteArrayBuilder out = new ByteArrayBuilder();
        if (binary) {
            record(out, "hdrcharset", ascii("BINARY"));
        }
        pax.forEach((key, value) -> record(out, key, value));
        return out.toByteArray();
    }

    /** "length key=value\n", where length counts the whole record including its own digits. */
    private static void record(ByteArrayBuilder out, String key, byte[] value) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        int body = 1 + keyBytes.length + 1 + value.length + 1;
        int length = body + 1;
        while (length != body + Integer.toString(length).length()) {
            length = body + Integer.toString(length).length();
        }
        out.write(ascii(length + " "));
        out.write(keyBytes);
        out.write('=');
        out.write(value);
        out.write('\n');
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private void putBytes(byte[] bytes, int from, int length) throws IOException {
        int done = 0;
        while (done < length) {
            if (position == capacity) {
                flush();
            }
            int chunk = Math.min(capacity - position, length - done);
            memory.write(position, bytes, from + done, chunk);
            position += chunk;
            done += chunk;
        }
    }

    private void putZeros(int count) throws IOException {
        int done = 0;
        while (done < count) {
            if (position == capacity) {
                flush();
            }
            int chunk = Math.min(capacity - position, count - done);
            memory.setMemory(position, chunk, (byte) 0);
            position += chunk;
            done += chunk;
        }
    }

    private void flush() throws IOException {
        view.clear().limit(position);
        while (view.hasRemaining()) {
            channel.write(view);
        }
        streamed += position;
        position = 0;
    }
}
