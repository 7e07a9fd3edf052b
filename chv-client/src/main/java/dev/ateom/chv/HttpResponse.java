package dev.ateom.chv;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One HTTP response as read off the API socket.
 *
 * @param statusLine the raw status line (CHV's has no reason phrase: {@code "HTTP/1.1 204 "})
 * @param status     the status code
 * @param headers    header names lower-cased → values, in arrival order
 * @param body       the body bytes (empty when none)
 */
public record HttpResponse(String statusLine, int status, Map<String, String> headers, byte[] body) {
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
