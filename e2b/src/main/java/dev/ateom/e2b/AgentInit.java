package dev.ateom.e2b;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.json.ApiJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The envd {@code POST /init} the daemon sends after every create, resume and connect: the sandbox's env vars, its
 * access token (secure sandboxes) and the host's time, so a restored guest's clock and env are right. A guest that
 * has just been restored may take a moment to accept: tried until {@link #PATIENCE} has passed.
 */
final class AgentInit {
    static final long ENVD_PORT = 49983;
    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private AgentInit() {}

    static void send(Path vsockSocket, Map<String, String> envVars, String accessToken) {
        Instant deadline = Instant.now().plus(PATIENCE);
        String last;
        while (true) {
            try {
                int status = post(vsockSocket, body(envVars, accessToken), accessToken);
                if (status / 100 == 2) return;
                last = "answered " + status;
                if (status / 100 == 4) break; // a refusal does not change by asking again
            } catch (IOException e) {
                last = e.getMessage();
            }
            if (Instant.now().isAfter(deadline)) break;
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                last = "interrupted";
                break;
            }
        }
        throw E2bError.badGateway("the sandbox's envd did not take /init: " + last);
    }

    private static byte[] body(Map<String, String> envVars, String accessToken) {
        ObjectNode body = ApiJson.mapper().createObjectNode();
        body.set("envVars", ApiJson.mapper().valueToTree(envVars));
        if (accessToken != null) body.put("accessToken", accessToken);
        body.put("timestamp", Instant.now().toString());
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static int post(Path vsockSocket, byte[] body, String accessToken) throws IOException {
        try (GuestStream guest = GuestStream.open(vsockSocket, ENVD_PORT)) {
            String head = "POST /init HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
                    + (accessToken != null ? "X-Access-Token: " + accessToken + "\r\n" : "")
                    + "Content-Length: " + body.length + "\r\n\r\n";
            guest.out().write(GuestStream.ascii(head));
            guest.out().write(body);
            guest.out().flush();
            String status = guest.readLine(512);
            if (status == null || !status.startsWith("HTTP/1.")) throw new IOException("no HTTP answer to /init: " + status);
            return Integer.parseInt(status.split(" ", 3)[1]);
        }
    }
}
