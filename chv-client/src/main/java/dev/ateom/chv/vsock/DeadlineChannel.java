package dev.ateom.chv.vsock;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * A connected stream whose reads and writes give up at a deadline (plain {@link SocketChannel}s on Unix
 * sockets have no read timeout). Buffers what it read past a line, so lines and counted payloads can be mixed.
 */
public final class DeadlineChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer pending = ByteBuffer.allocate(64 * 1024).flip();

    DeadlineChannel(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
        this.selector = Selector.open();
    }

    public void writeAll(ByteBuffer data, Instant deadline) throws IOException {
        while (data.hasRemaining()) {
            if (channel.write(data) == 0) {
                await(SelectionKey.OP_WRITE, deadline);
            }
        }
    }

    /** The next line without its {@code \n}, or null at end of stream before any byte of a line. */
    public String readLine(Instant deadline, int maxLength) throws IOException {
        var line = new ByteArrayOutputStream();
        while (true) {
            while (pending.hasRemaining()) {
                byte b = pending.get();
                if (b == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                if (line.size() == maxLength) {
                    throw new IOException("line longer than " + maxLength + " bytes");
                }
                line.write(b);
            }
            if (!fill(deadline)) {
                if (line.size() == 0) {
                    return null;
                }
                throw new IOException("stream ended inside a line: '" + line.toString(StandardCharsets.UTF_8) + "'");
            }
        }
    }

    /** Exactly {@code length} bytes. */
    public byte[] readExactly(int length, Instant deadline) throws IOException {
        byte[] out = new byte[length];
        int got = 0;
        while (got < length) {
            if (!pending.hasRemaining() && !fill(deadline)) {
                throw new IOException("stream ended after " + got + " of " + length + " bytes");
            }
            int n = Math.min(pending.remaining(), length - got);
            pending.get(out, got, n);
            got += n;
        }
        return out;
    }

    private boolean fill(Instant deadline) throws IOException {
        pending.compact();
        try {
            while (true) {
                int n = channel.read(pending);
                if (n < 0) {
                    return false;
                }
                if (n > 0) {
                    return true;
                }
                await(SelectionKey.OP_READ, deadline);
            }
        } finally {
            pending.flip();
        }
    }

    private void await(int op, Instant deadline) throws IOException {
        long millis = Duration.between(Instant.now(), deadline).toMillis();
        if (millis <= 0) {
            throw new SocketTimeoutException("no answer before the deadline");
        }
        SelectionKey key = channel.register(selector, op);
        try {
            selector.select(millis);
        } finally {
            key.cancel();
            selector.selectNow();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            channel.close();
        }
    }
}
