package dev.ateom.microvm.http;

import dev.ateom.microvm.json.ApiJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerResponse;

import java.io.UncheckedIOException;

/** Writes JSON bodies and problem documents with the right media types. */
public final class Responses {
    private Responses() {}

    public static void json(ServerResponse res, int status, Object body) {
        send(res, status, "application/json", body);
    }

    public static void problem(ServerResponse res, ApiException e, String path) {
        if (e.status() == 401) res.header(HeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"ateom\"");
        send(res, e.status(), Problem.MEDIA_TYPE, Problem.of(e, path));
    }

    private static void send(ServerResponse res, int status, String mediaType, Object body) {
        byte[] bytes;
        try {
            bytes = ApiJson.mapper().writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, mediaType);
        // the body is serialized by now; what is left (writing it to the socket) the client's wall time holds
        ServerTiming.header().ifPresent(value -> res.header(ServerTiming.HEADER, value));
        res.send(bytes);
    }
}
