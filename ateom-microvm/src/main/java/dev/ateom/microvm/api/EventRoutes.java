package dev.ateom.microvm.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.ateom.microvm.events.EventLog;
import dev.ateom.microvm.events.EventSubscription;
import dev.ateom.microvm.events.SandboxEvent;
import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.http.RouteTable;
import dev.ateom.microvm.json.ApiJson;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * {@code GET /v1/events}: the events stream as Server-Sent Events ({@code id}, {@code event} = type, {@code data} =
 * the event as JSON). {@code ?since=<id>} (or the {@code Last-Event-ID} header) replays what followed that id from the
 * ring, 410 when it is no longer there; {@code ?sandbox=<id>} keeps one sandbox's events. A comment line every 15 s
 * keeps idle connections alive and finds dead ones. A client too slow to keep up is cut off with a last
 * {@code cut-off} event naming the id to resume after.
 */
public final class EventRoutes extends RouteTable {
    private static final Duration HEARTBEAT = Duration.ofSeconds(15);
    private final EventLog events;

    public EventRoutes(EventLog events) { this.events = events; }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).get("/v1/events", this::stream);
    }

    private void stream(ServerRequest req, ServerResponse res) {
        Long since = since(req);
        String sandbox = req.query().contains("sandbox") ? req.query().get("sandbox") : null;
        Predicate<SandboxEvent> filter = sandbox == null ? e -> true : e -> sandbox.equals(e.sandboxId());
        EventSubscription subscription = events.subscribe(since, filter).orElseThrow(() -> new ApiException(410, "events-expired",
                "Events no longer kept", "event " + since + " is older than the ring or from an earlier daemon run; "
                + events.describeRange() + ". List the sandboxes again and subscribe without 'since'."));
        res.status(200);
        res.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        long lastId = since == null ? 0 : since;
        try (subscription; OutputStream out = res.outputStream()) {
            write(out, ": events" + (since == null ? "" : " after " + since) + "\n\n");
            while (true) {
                EventSubscription.Next next = subscription.next(HEARTBEAT);
                if (next.ending() == EventSubscription.Ending.CUT_OFF) {
                    write(out, "event: cut-off\ndata: {\"reason\":\"the client fell too far behind\",\"resumeAfter\":" + lastId + "}\n\n");
                    return;
                }
                if (next.ending() != null) return;
                if (next.event() == null) {
                    write(out, ": keep-alive\n\n");
                    continue;
                }
                SandboxEvent event = next.event();
                write(out, "id: " + event.id() + "\nevent: " + event.type().wireName() + "\ndata: " + json(event) + "\n\n");
                lastId = event.id();
            }
        } catch (IOException | UncheckedIOException e) {
            // the client went away: the subscription is closed above
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String json(SandboxEvent event) {
        try {
            return ApiJson.mapper().writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an event cannot be written as JSON", e);
        }
    }

    private static Long since(ServerRequest req) {
        String value = req.query().contains("since") ? req.query().get("since")
                : req.headers().first(HeaderNames.create("Last-Event-ID")).orElse(null);
        if (value == null) return null;
        try {
            long id = Long.parseLong(value);
            if (id >= 0) return id;
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.invalidFields(List.of(new Problem.FieldError("since", "must be an event id (a whole number >= 0), was '"
                + value + "'")));
    }
}
