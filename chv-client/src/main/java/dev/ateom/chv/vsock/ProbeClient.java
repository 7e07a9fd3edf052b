package dev.ateom.chv.vsock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * Talks to the fixture guest's identity probe ({@code ate-probe}) over the VM's hybrid vsock socket.
 *
 * <p>Protocol (one command per line): {@code ping}, {@code whoami} (pread at offset 0 of the identity file
 * the probe opened at startup and holds), {@code cat <path>}, {@code write <path> <data>} (under the guest's
 * /data, fsync'd), {@code ls <dir>}, {@code open <path>} / {@code pread <handle>} (hold more descriptors),
 * {@code settime <epoch-ns>}, {@code time}, {@code sync}, and over the guest's network {@code connect <ip> <port>},
 * {@code http-get <ip> <port> <path>} and {@code listen <port>}; {@code activity} is the guest's activity counter.
 * Answers are {@code OK <n>\n} + n bytes, or
 * {@code ERR <ERRNO-NAME> <message>\n}. Each call uses a fresh connection.
 *
 * @param vsockSocket the VM's {@code vsock.socket}
 * @param port        the probe's vsock port (the guest's {@code ate.probe.port}, default {@value #DEFAULT_PORT})
 * @param timeout     per call: connect, send, answer
 */
public record ProbeClient(Path vsockSocket, long port, Duration timeout) {
    public static final long DEFAULT_PORT = 1024;
    /** The probe's own limits for network commands (5 s connect, 10 s HTTP) plus room for a slow TCG guest. */
    private static final Duration NETWORK_TIMEOUT = Duration.ofSeconds(20);
    private static final System.Logger LOG = System.getLogger(ProbeClient.class.getName());

    public ProbeClient(Path vsockSocket) {
        this(vsockSocket, DEFAULT_PORT, Duration.ofSeconds(10));
    }

    /** Polls {@code ping} until the probe answers; throws naming socket and port after {@code within}. */
    public void awaitReady(Duration within) {
        Instant deadline = Instant.now().plus(within);
        ProbeException last = null;
        int attempts = 0;
        while (Instant.now().isBefore(deadline)) {
            attempts++;
            Duration left = Duration.between(Instant.now(), deadline);
            try {
                new ProbeClient(vsockSocket, port, left.compareTo(timeout) < 0 ? left : timeout).call("ping").text();
                LOG.log(System.Logger.Level.DEBUG, "probe on {0} port {1} ready after {2} attempts", vsockSocket, port, attempts);
                return;
            } catch (ProbeException e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProbeException("interrupted waiting for the probe on " + vsockSocket, e);
            }
        }
        throw new ProbeException("guest probe on " + vsockSocket + " port " + port + " did not answer within " + within
                + " (" + attempts + " attempts)" + (last == null ? "" : ": " + last.getMessage()), last);
    }

    public String ping() {
        return call("ping").text();
    }

    /** What the held identity descriptor reads now (an error reply when it lost its file, e.g. EIO). */
    public ProbeReply whoami() {
        return call("whoami");
    }

    public ProbeReply cat(String guestPath) {
        return call("cat " + guestPath);
    }

    /** Writes {@code data} (one line, no newline) to {@code guestPath} under the guest's data dir; fsync'd. */
    public void write(String guestPath, String data) {
        if (data.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("probe write data cannot contain a newline");
        }
        call("write " + guestPath + " " + data).text();
    }

    /** Entry names, sorted. */
    public List<String> ls(String guestDir) {
        String text = call("ls " + guestDir).text();
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\n"));
    }

    /** Opens and holds {@code guestPath} in the probe; returns the handle for {@link #pread}. */
    public int open(String guestPath) {
        return Integer.parseInt(call("open " + guestPath).text());
    }

    public ProbeReply pread(int handle) {
        return call("pread " + handle);
    }

    /** Sets the guest's wall clock. */
    public void setTime(Instant now) {
        long nanos = Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
        call("settime " + nanos).text();
    }

    /** How many commands other than the host daemon's own ({@code ping}, {@code settime}, {@code activity}) the probe served. */
    public long activity() {
        return Long.parseUnsignedLong(call("activity").text());
    }

    /** The guest's wall clock. */
    public Instant time() {
        long nanos = Long.parseLong(call("time").text());
        return Instant.ofEpochSecond(0, nanos);
    }

    /**
     * Opens a TCP connection from the guest to {@code ip:port} and closes it: ok ({@code "ok"}), or the errno the
     * guest got ({@code EHOSTUNREACH} when a firewall rejects it, {@code ETIMEDOUT} after 5 s).
     */
    public ProbeReply connect(String ip, int port) {
        return call("connect " + ip + " " + port, NETWORK_TIMEOUT);
    }

    /** An HTTP/1.0 GET made by the guest: the whole answer (status line, headers, body), or the errno (10 s limit in the guest). */
    public ProbeReply httpGet(String ip, int port, String path) {
        if (path.isEmpty() || path.chars().anyMatch(c -> c <= ' ')) {
            throw new IllegalArgumentException("an HTTP path without spaces or control characters: '" + path + "'");
        }
        return call("http-get " + ip + " " + port + " " + path, NETWORK_TIMEOUT);
    }

    /** From now on the guest answers HTTP on TCP {@code port} with 200 and {@link #httpBodyFor(int)}. */
    public void listen(int port) {
        call("listen " + port).text();
    }

    /** The body the probe serves on a port given to {@link #listen}. */
    public static String httpBodyFor(int port) {
        return "ate-probe http on port " + port + "\n";
    }

    /** Sends one command line and reads its answer. */
    public ProbeReply call(String command) {
        return call(command, timeout);
    }

    private ProbeReply call(String command, Duration limit) {
        Duration timeout = limit.compareTo(this.timeout) > 0 ? limit : this.timeout;
        Instant deadline = Instant.now().plus(timeout);
        try (DeadlineChannel connection = new HybridVsock(vsockSocket).connect(port, timeout)) {
            connection.writeAll(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)), deadline);
            String head = connection.readLine(deadline, 4096);
            if (head == null) {
                throw new ProbeException("probe on " + vsockSocket + " closed the connection on '" + command + "'");
            }
            if (head.startsWith("OK ")) {
                int length = Integer.parseInt(head.substring(3).trim());
                return new ProbeReply(connection.readExactly(length, deadline), null, null);
            }
            if (head.startsWith("ERR ")) {
                String[] parts = head.substring(4).split(" ", 2);
                return new ProbeReply(null, parts[0], parts.length > 1 ? parts[1] : "");
            }
            throw new ProbeException("probe on " + vsockSocket + " answered '" + head + "' to '" + command + "'");
        } catch (IOException | NumberFormatException e) {
            throw new ProbeException("probe on " + vsockSocket + " port " + port + ", '" + command + "': " + e.getMessage(), e);
        }
    }
}
