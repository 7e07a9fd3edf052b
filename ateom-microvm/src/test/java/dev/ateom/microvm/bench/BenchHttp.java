package dev.ateom.microvm.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A plain HTTP/1.1 client for the benchmarks: each request written on a kept-alive connection by the calling thread,
 * the answer read by it, nothing else. The JDK's HttpClient hands every request between the caller, its selector
 * thread and its executor's threads, and in a JVM that sends a few hundred requests much of its code still runs
 * interpreted: {@code GET /healthz} measured 11.6 ms p50 through it on a quiet host while the daemon answered it in
 * 0.2 ms on a kept-alive socket (1.3-3 ms through a warmed-up HttpClient). A benchmark of the daemon must not
 * measure its own client. One connection per request in flight (the scaling rows send 20 at once); a connection
 * the daemon closed meanwhile is found closed before it is used, so no request is ever sent twice.
 */
final class BenchHttp implements AutoCloseable {
    /**
     * An answer: its status, body (UTF-8) and the daemon's own time for it ({@code Server-Timing: daemon;dur=}, NaN
     * when absent).
     */
    record Answer(int status, String body, double serverMillis) {}

    private final InetSocketAddress address;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    BenchHttp(int port) { this.address = new InetSocketAddress("127.0.0.1", port); }

    /** Sends one request and reads its answer; {@code body} null for none. */
    Answer send(String method, String path, Map<String, String> headers, byte[] body) throws IOException {
        Connection connection = idleConnection();
        boolean reusable = false;
        try {
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(address.getHostString()).append(':').append(address.getPort()).append("\r\n");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            if (body != null) head.append("Content-Length: ").append(body.length).append("\r\n");
            head.append("\r\n");
            connection.out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) connection.out.write(body);
            connection.out.flush();
            Answer answer = connection.readAnswer(method);
            reusable = connection.keepAlive;
            return answer;
        } finally {
            if (reusable) idle.push(connection); else connection.close();
        }
    }

    /** A kept-alive connection the daemon has not closed, or a new one. */
    private Connection idleConnection() throws IOException {
        for (Connection c = idle.poll(); c != null; c = idle.poll()) {
            if (c.stillOpen()) return c;
            c.close();
        }
        return new Connection(SocketChannel.open(address));
    }

    @Override
    public void close() {
        for (Connection c = idle.poll(); c != null; c = idle.poll()) c.close();
    }

    private static final class Connection {
        private final SocketChannel channel;
        private final InputStream in;
        private final OutputStream out;
        private boolean keepAlive = true;

        Connection(SocketChannel channel) throws IOException {
            this.channel = channel;
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            this.in = new BufferedInputStream(Channels.newInputStream(channel));
            this.out = Channels.newOutputStream(channel);
        }

        /** False when the daemon closed it (or sent something unasked): checked without blocking, before a request. */
        boolean stillOpen() {
            try {
                channel.configureBlocking(false);
                int read = channel.read(ByteBuffer.allocate(1));
                channel.configureBlocking(true);
                return read == 0;
            } catch (IOException e) {
                return false;
            }
        }

        Answer readAnswer(String method) throws IOException {
            String status = line();
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP/1 status line: " + status);
            int code = Integer.parseInt(parts[1]);
            long length = -1;
            boolean chunked = false;
            double serverMillis = Double.NaN;
            keepAlive = parts[0].equals("HTTP/1.1");
            for (String header = line(); !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                if (colon < 0) continue;
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                    case "server-timing" -> serverMillis = daemonDuration(value);
                    default -> { }
                }
            }
            byte[] body;
            if (method.equals("HEAD") || code == 204 || code == 304 || (code >= 100 && code < 200)) {
                body = new byte[0];
            } else if (chunked) {
                body = chunkedBody();
            } else if (length >= 0) {
                body = in.readNBytes((int) length);
                if (body.length != length) throw new EOFException("the answer ended after " + body.length + " of " + length + " bytes");
            } else {
                body = in.readAllBytes(); // no length: the body ends with the connection
                keepAlive = false;
            }
            return new Answer(code, new String(body, StandardCharsets.UTF_8), serverMillis);
        }

        /** {@code dur} of the {@code daemon} metric in a Server-Timing value; NaN without one. */
        private static double daemonDuration(String value) {
            for (String metric : value.split(",")) {
                String[] params = metric.trim().split(";");
                if (!params[0].trim().equals("daemon")) continue;
                for (String param : params) {
                    if (param.trim().startsWith("dur=")) return Double.parseDouble(param.trim().substring(4));
                }
            }
            return Double.NaN;
        }

        private byte[] chunkedBody() throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                int semicolon = size.indexOf(';');
                int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
                if (n == 0) {
                    while (!line().isEmpty()) { } // trailers
                    return body.toByteArray();
                }
                byte[] chunk = in.readNBytes(n);
                if (chunk.length != n) throw new EOFException("a chunk ended early");
                body.writeBytes(chunk);
                line();
            }
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) throw new EOFException("the daemon closed the connection mid-answer");
                if (c != '\r') line.append((char) c);
            }
            return line.toString();
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // closing a socket we are done with: nothing to do about it
            }
        }
    }
}
