package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * The progress of an operation on stderr, shown only once it has run for {@link #SHOW_AFTER_NANOS}: a quick suspend
 * prints nothing but its answer, a long one a bar (bytes done of the total) or its step and time, redrawn in place.
 * Only on a terminal ({@link #onTerminal}); scripts get clean output.
 */
final class DelayedProgressBar implements ProgressView {
    static final long SHOW_AFTER_NANOS = 1_000_000_000L;

    private final String what;
    private final PrintStream err;
    private final LongSupplier nanoClock;
    private final long start;
    private boolean shown;

    DelayedProgressBar(String what, PrintStream err, LongSupplier nanoClock) {
        this.what = what;
        this.err = err;
        this.nanoClock = nanoClock;
        this.start = nanoClock.getAsLong();
    }

    /** A bar on stderr when it is a terminal, nothing otherwise. */
    static ProgressView onTerminal(String what) {
        return System.console() == null ? ProgressView.NONE : new DelayedProgressBar(what, System.err, System::nanoTime);
    }

    @Override
    public void update(JsonNode operation) {
        long elapsed = nanoClock.getAsLong() - start;
        if (elapsed < SHOW_AFTER_NANOS) return;
        shown = true;
        err.print("\r" + line(what, operation, elapsed / 1e9) + "   ");
    }

    @Override
    public void done(JsonNode operation) {
        if (!shown) return;
        err.println("\r" + line(what, operation, (nanoClock.getAsLong() - start) / 1e9) + "   ");
    }

    /** Whether anything was drawn. */
    boolean shown() { return shown; }

    static String line(String what, JsonNode operation, double seconds) {
        String step = operation.path("step").asText(operation.path("state").asText());
        if (!"running".equals(operation.path("state").asText())) step = operation.path("state").asText();
        String time = String.format(" %.1f s", seconds);
        long total = operation.path("bytesTotal").asLong(0);
        if (operation.has("bytesDone") && total > 0) {
            return ProgressBar.line(what, step, operation.path("bytesDone").asLong(), total) + time;
        }
        if (operation.has("bytesDone")) return what + " " + step + " " + ClientCommand.humanBytes(operation.path("bytesDone").asLong()) + time;
        return what + " " + step + " …" + time;
    }
}
