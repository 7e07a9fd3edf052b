package dev.ateom.microvm.cli;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Frames the lines of a Server-Sent Events stream into events: {@code event:} and {@code data:} lines up to a blank
 * line. Comment lines (a leading {@code :}) are handed to {@code comments}: the daemon's first one says the
 * subscription is in place. {@code events} answers whether to read on.
 */
final class ServerSentEvents implements Predicate<String> {
    /** One event of the stream. */
    record Event(String type, String data) {}

    private final Predicate<Event> events;
    private final Consumer<String> comments;
    private String type = "message";
    private final StringBuilder data = new StringBuilder();

    ServerSentEvents(Predicate<Event> events, Consumer<String> comments) {
        this.events = events;
        this.comments = comments;
    }

    /** Takes one line; false once the events consumer wants no more. */
    @Override
    public boolean test(String line) {
        if (line.isEmpty()) {
            boolean more = data.isEmpty() || events.test(new Event(type, data.toString()));
            type = "message";
            data.setLength(0);
            return more;
        } else if (line.startsWith(":")) {
            comments.accept(line.substring(1).strip());
        } else if (line.startsWith("event:")) {
            type = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
            if (!data.isEmpty()) data.append('\n');
            data.append(line.substring(5).strip());
        }
        return true;
    }
}
