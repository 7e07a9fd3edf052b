package dev.ateom.microvm.timing;

/**
 * When one step of an operation ran, in microseconds from the operation's start: what the answer's timings (durations
 * in ms) cannot show, which steps overlapped and what the operation waited for between them. A step beside the others
 * ({@link StepTimer#stepBeside}) that starts late waited for a carrier thread.
 *
 * @param beside whether it ran on a thread of its own beside the operation's
 */
public record StepSpan(String name, long startMicros, long micros, boolean beside) {
    /** {@code name@start+duration}, with {@code ~} after the name for a step beside: one token of a trace line. */
    @Override
    public String toString() {
        return name + (beside ? "~" : "") + "@" + startMicros + "+" + micros;
    }
}
