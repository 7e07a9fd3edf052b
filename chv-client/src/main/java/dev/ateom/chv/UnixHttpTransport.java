package dev.ateom.chv;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HTTP/1.1 over a Unix stream socket, one connection per request (a reused keep-alive connection is known
 * to hang on CHV's vm.resume), with optional file descriptors sent in the same {@code sendmsg} as the request
 * (SCM_RIGHTS, how CHV receives {@code net_fds}). Every wait is bounded by the call's deadline; interrupting
 * the calling thread or {@link #close()} aborts calls in flight.
 */
public final class UnixHttpTransport implements AutoCloseable {
    private static final int POLL_SLICE_MS = 100;

    private final Path socket;
    private final Set<Integer> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public UnixHttpTransport(Path socket) {
        this.socket = socket;
        LibC.INSTANCE.getClass(); // fail early if libc cannot be loaded
    }

    public Path socket() {
        return socket;
    }

    /**
     * Sends {@code method path} with an optional JSON body and {@code fds}, and reads the whole response.
     *
     * @throws ChvTimeoutException   the deadline passed
     * @throws ChvTransportException connecting, sending or reading failed, or the call was cancelled
     */
    public HttpResponse exchange(String method, String path, byte[] body, List<Integer> fds, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String endpoint = method + " " + path;
        int fd = open(endpoint);
        inFlight.add(fd);
        try {
            connect(fd, endpoint);
            byte[] request = requestBytes(method, path, body);
            send(fd, request, fds, endpoint, deadline, timeout);
            return read(fd, endpoint, deadline, timeout);
        } finally {
            inFlight.remove(fd);
            closeQuietly(fd);
        }
    }

    private int open(String endpoint) {
        if (closed) {
            throw new ChvTransportException(endpoint, socket, "client closed");
        }
        try {
            return LibC.INSTANCE.socket(LibC.AF_UNIX, LibC.SOCK_STREAM | LibC.SOCK_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new ChvTransportException(endpoint, socket, "socket(): errno " + e.getErrorCode());
        }
    }

    private void connect(int fd, String endpoint) {
        byte[] path = socket.toString().getBytes(StandardCharsets.UTF_8);
        if (path.length > 107) {
            throw new ChvTransportException(endpoint, socket, "socket path longer than 107 bytes");
        }
        try (Memory addr = new Memory(110)) {
            addr.clear();
            addr.setShort(0, (short) LibC.AF_UNIX);
            addr.write(2, path, 0, path.length);
            LibC.INSTANCE.connect(fd, addr, 110);
        } catch (LastErrorException e) {
            throw new ChvTransportException(endpoint, socket, "connect: " + errnoName(e.getErrorCode()));
        }
    }

    private static byte[] requestBytes(String method, String path, byte[] body) {
        var head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\n").append("Accept: */*\r\n");
        if (body != null) {
            head.append("Content-Type: application/json\r\n").append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
        if (body == null) {
            return headBytes;
        }
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
    }

    private void send(int fd, byte[] data, List<Integer> fds, String endpoint, long deadline, Duration timeout) {
        try (Memory buffer = new Memory(data.length); Memory iov = new Memory(16); Memory msg = new Memory(56)) {
            buffer.write(0, data, 0, data.length);
            long sent = 0;
            boolean fdsSent = fds.isEmpty();
            while (sent < data.length) {
                awaitReady(fd, LibC.POLLOUT, endpoint, deadline, timeout);
                iov.setPointer(0, buffer.share(sent));
                iov.setLong(8, data.length - sent);
                msg.clear();
                msg.setPointer(16, iov);
                msg.setLong(24, 1);
                Memory control = null;
                if (!fdsSent) {
                    int controlLen = 16 + ((fds.size() * 4 + 7) & ~7);
                    control = new Memory(controlLen);
                    control.clear();
                    control.setLong(0, 16 + fds.size() * 4L);
                    control.setInt(8, LibC.SOL_SOCKET);
                    control.setInt(12, LibC.SCM_RIGHTS);
                    for (int i = 0; i < fds.size(); i++) {
                        control.setInt(16 + i * 4L, fds.get(i));
                    }
                    msg.setPointer(32, control);
                    msg.setLong(40, controlLen);
                }
                try {
                    sent += LibC.INSTANCE.sendmsg(fd, msg, LibC.MSG_NOSIGNAL);
                    fdsSent = true;
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != LibC.EINTR && e.getErrorCode() != LibC.EAGAIN) {
                        throw new ChvTransportException(endpoint, socket, "sendmsg: " + errnoName(e.getErrorCode()));
                    }
                } finally {
                    if (control != null) {
                        control.close();
                    }
                }
            }
        }
    }

    private HttpResponse read(int fd, String endpoint, long deadline, Duration timeout) {
        var received = new ByteArrayOutputStream();
        try (Memory buffer = new Memory(64 * 1024)) {
            while (true) {
                HttpResponse complete = parseIfComplete(received.toByteArray(), endpoint);
                if (complete != null) {
                    return complete;
                }
                awaitReady(fd, LibC.POLLIN, endpoint, deadline, timeout);
                long n;
                try {
                    n = LibC.INSTANCE.read(fd, buffer, buffer.size());
                } catch (LastErrorException e) {
                    if (e.getErrorCode() == LibC.EINTR || e.getErrorCode() == LibC.EAGAIN) {
                        continue;
                    }
                    throw new ChvTransportException(endpoint, socket, "read: " + errnoName(e.getErrorCode()));
                }
                if (n == 0) {
                    throw new ChvTransportException(endpoint, socket, closed ? "cancelled: client closed"
                            : "connection closed by CHV after " + received.size() + " byte(s) of response");
                }
                received.write(buffer.getByteArray(0, (int) n), 0, (int) n);
            }
        }
    }

    /** Waits until {@code fd} is ready, in slices so that interrupts and the deadline are noticed. */
    private void awaitReady(int fd, short events, String endpoint, long deadline, Duration timeout) {
        try (Memory pollfd = new Memory(8)) {
            while (true) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new ChvTransportException(endpoint, socket, "cancelled: calling thread interrupted");
                }
                if (closed) {
                    throw new ChvTransportException(endpoint, socket, "cancelled: client closed");
                }
                long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
                if (remainingMs <= 0) {
                    throw new ChvTimeoutException(endpoint, socket, timeout);
                }
                pollfd.setInt(0, fd);
                pollfd.setShort(4, events);
                pollfd.setShort(6, (short) 0);
                try {
                    if (LibC.INSTANCE.poll(pollfd, 1, (int) Math.min(POLL_SLICE_MS, remainingMs)) > 0) {
                        return;
                    }
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != LibC.EINTR) {
                        throw new ChvTransportException(endpoint, socket, "poll: " + errnoName(e.getErrorCode()));
                    }
                }
            }
        }
    }

    /** A full response once headers and Content-Length bytes are in; CHV's 204 has no Content-Length. */
    private HttpResponse parseIfComplete(byte[] data, String endpoint) {
        int headerEnd = indexOfBlankLine(data);
        if (headerEnd < 0) {
            return null;
        }
        String[] lines = new String(data, 0, headerEnd, StandardCharsets.US_ASCII).split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/")) {
            throw new ChvTransportException(endpoint, socket, "not an HTTP status line: '" + lines[0] + "'");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        int bodyStart = headerEnd + 4;
        if (data.length < bodyStart + length) {
            return null;
        }
        byte[] body = Arrays.copyOfRange(data, bodyStart, bodyStart + length);
        try {
            return new HttpResponse(lines[0], Integer.parseInt(status[1]), headers, body);
        } catch (NumberFormatException e) {
            throw new ChvTransportException(endpoint, socket, "bad status line '" + lines[0] + "'");
        }
    }

    private static int indexOfBlankLine(byte[] data) {
        for (int i = 0; i + 3 < data.length; i++) {
            if (data[i] == '\r' && data[i + 1] == '\n' && data[i + 2] == '\r' && data[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static String errnoName(int errno) {
        return switch (errno) {
            case 2 -> "ENOENT (no such socket)";
            case 111 -> "ECONNREFUSED (no listener)";
            case 104 -> "ECONNRESET";
            case 32 -> "EPIPE";
            case 13 -> "EACCES";
            default -> "errno " + errno;
        };
    }

    private static void closeQuietly(int fd) {
        try {
            LibC.INSTANCE.close(fd);
        } catch (LastErrorException ignored) {
            // already closed
        }
    }

    /** Aborts calls in flight (they fail with a transport error) and refuses new ones. */
    @Override
    public void close() {
        closed = true;
        for (int fd : inFlight) {
            try {
                LibC.INSTANCE.shutdown(fd, LibC.SHUT_RDWR);
            } catch (LastErrorException ignored) {
                // the call finished meanwhile
            }
        }
    }
}
