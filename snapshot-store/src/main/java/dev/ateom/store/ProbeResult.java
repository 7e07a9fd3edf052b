package dev.ateom.store;

/** What the store probe found; {@code detail} says what was seen, for the start-up log and adopt answers. */
public record ProbeResult(ConditionalWrites conditionalWrites, String detail) {
    public boolean leasesSafe() {
        return conditionalWrites == ConditionalWrites.HONOURED;
    }
}
