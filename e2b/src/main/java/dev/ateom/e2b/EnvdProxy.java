package dev.ateom.e2b;

import dev.ateom.microvm.sandbox.SandboxState;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Set;

/**
 * Forwards envd requests to the guest port over the VM's hybrid vsock, one guest stream per request, bodies copied as
 * they come in both directions (a server-streaming RPC's events reach the client as the guest writes them; a download is
 * never held whole). Each request runs on Helidon's virtual thread, so an idle stream costs no platform thread. Unknown
 * sandbox 404, paused 502 (or resumed first with auto-resume), wrong access token of a secure sandbox 401; the client's
 * own {@code POST /init} is refused (the daemon sends it, with the sandbox's env and token).
 */
final class EnvdProxy {
    private static final System.Logger LOG = System.getLogger(EnvdProxy.class.getName());
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
            "trailer", "upgrade", "host", "content-length", "e2b-sandbox-id", "e2b-sandbox-port", "x-api-key");
    private static final int BUFFER = 32 * 1024;

    private final E2bService service;

    EnvdProxy(E2bService service) { this.service = service; }

    void forward(EnvdTarget target, ServerRequest req, ServerResponse res) {
        if (!target.validPort()) throw E2bError.badRequest("E2b-Sandbox-Port must be a port number");
        E2bService.Current current = service.find(target.sandboxId()).isPresent() ? service.require(target.sandboxId()) : null;
        if (current == null) throw E2bError.notFound("sandbox '" + target.sandboxId() + "' not found");
        String path = req.path().rawPath();
        if (current.sandbox().secure() && !(path.equals("/health") && req.prologue().method() == Method.GET)) {
            String token = req.headers().first(HeaderNames.create("X-Access-Token")).orElse("");
            if (!MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8),
                    current.sandbox().envdAccessToken().getBytes(StandardCharsets.UTF_8))) {
                throw E2bError.unauthorized("missing or wrong X-Access-Token for secure sandbox '" + target.sandboxId() + "'");
            }
        }
        if (path.equals("/init") && target.port() == AgentInit.ENVD_PORT) {
            throw E2bError.forbidden("/init is sent by ateom itself (env vars and token come from the sandbox's create request)");
        }
        if (current.paused() && current.sandbox().autoResume()) current = service.resumeForTraffic(current);
        if (current.record().state() != SandboxState.RUNNING) {
            throw E2bError.badGateway("sandbox '" + target.sandboxId() + "' is " + (current.paused() ? "paused" : "not running")
                    + "; connect to it first");
        }
        Path vsock = Path.of(current.record().runtime().vsockSocket());
        GuestStream guest;
        try {
            guest = GuestStream.open(vsock, target.port());
        } catch (IOException e) {
            throw E2bError.badGateway("sandbox '" + target.sandboxId() + "' port " + target.port() + ": " + e.getMessage());
        }
        try (guest) {
            sendRequest(req, guest);
            relayAnswer(req, guest, res);
        } catch (IOException e) {
            // the client or the guest went away mid-stream: the guest stream is closed above, nothing else is held
            LOG.log(System.Logger.Level.DEBUG, "envd proxy to " + target + " ended: " + e.getMessage());
            if (!res.isSent()) throw E2bError.badGateway("sandbox '" + target.sandboxId() + "': " + e.getMessage());
        }
    }

    private static void sendRequest(ServerRequest req, GuestStream guest) throws IOException {
        StringBuilder head = new StringBuilder();
        String query = req.query().rawValue();
        head.append(req.prologue().method().text()).append(' ').append(req.path().rawPath())
                .append(query == null || query.isEmpty() ? "" : "?" + query).append(" HTTP/1.1\r\n");
        head.append("Host: localhost\r\nConnection: close\r\n");
        for (Header header : req.headers()) {
            if (HOP_BY_HOP.contains(header.name().toLowerCase(Locale.ROOT))) continue;
            for (String value : header.allValues()) head.append(header.name()).append(": ").append(value).append("\r\n");
        }
        boolean hasBody = req.content().hasEntity();
        long length = req.headers().contentLength().orElse(-1L);
        if (hasBody && length >= 0) {
            head.append("Content-Length: ").append(length).append("\r\n\r\n");
            guest.out().write(GuestStream.ascii(head.toString()));
            try (InputStream body = req.content().inputStream()) {
                body.transferTo(guest.out());
            }
        } else if (hasBody) {
            head.append("Transfer-Encoding: chunked\r\n\r\n");
            guest.out().write(GuestStream.ascii(head.toString()));
            byte[] buffer = new byte[BUFFER];
            try (InputStream body = req.content().inputStream()) {
                int n;
                while ((n = body.read(buffer)) > 0) {
                    guest.out().write(GuestStream.ascii(Integer.toHexString(n) + "\r\n"));
                    guest.out().write(buffer, 0, n);
                    guest.out().write(GuestStream.ascii("\r\n"));
                }
            }
            guest.out().write(GuestStream.ascii("0\r\n\r\n"));
        } else {
            head.append("\r\n");
            guest.out().write(GuestStream.ascii(head.toString()));
        }
        guest.out().flush();
    }

    private static void relayAnswer(ServerRequest req, GuestStream guest, ServerResponse res) throws IOException {
        String status = guest.readLine(8192);
        if (status == null || !status.startsWith("HTTP/1.")) throw new IOException("the guest answered no HTTP status line: " + status);
        int code = Integer.parseInt(status.split(" ", 3)[1]);
        long length = -1;
        boolean chunked = false;
        String line;
        while ((line = guest.readLine(16 * 1024)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            if (colon <= 0) continue;
            String name = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("content-length")) length = Long.parseLong(value);
            if (lower.equals("transfer-encoding")) chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            if (HOP_BY_HOP.contains(lower)) continue;
            res.headers().add(HeaderNames.create(name), value);
        }
        res.status(code);
        boolean noBody = req.prologue().method() == Method.HEAD || code == 204 || code == 304 || code / 100 == 1;
        if (noBody) {
            res.send();
            return;
        }
        if (length >= 0 && !chunked) res.headers().contentLength(length);
        byte[] buffer = new byte[BUFFER];
        try (OutputStream out = res.outputStream()) {
            if (chunked) {
                copyChunked(guest, out, buffer);
            } else if (length >= 0) {
                copyCounted(guest.in(), out, buffer, length);
            } else {
                int n;
                while ((n = guest.in().read(buffer)) > 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        }
    }

    /** Unpacks the guest's chunks and writes each as it arrives (Helidon chunks the answer again), flushing every piece. */
    private static void copyChunked(GuestStream guest, OutputStream out, byte[] buffer) throws IOException {
        while (true) {
            String sizeLine = guest.readLine(1024);
            if (sizeLine == null) throw new IOException("the guest's chunked answer ended early");
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).strip(), 16);
            if (size == 0) {
                String trailer;
                while ((trailer = guest.readLine(16 * 1024)) != null && !trailer.isEmpty()) {
                    // trailers are dropped: Connect over HTTP/1.1 sends its end of stream in the body
                }
                return;
            }
            copyCounted(guest.in(), out, buffer, size);
            guest.readLine(2); // the CR LF after the chunk
        }
    }

    private static void copyCounted(InputStream in, OutputStream out, byte[] buffer, long count) throws IOException {
        long left = count;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) throw new IOException("the guest's answer ended " + left + " bytes early");
            out.write(buffer, 0, n);
            out.flush();
            left -= n;
        }
    }
}
