package dev.ateom.microvm.timing;

import java.util.Set;

/** The syntax shared by crash and fail points: {@code operation.step}, several comma separated. */
final class StepPoints {
    private StepPoints() {}

    static Set<String> parse(String value) {
        if (value == null || value.isBlank()) return Set.of();
        return Set.of(value.strip().split("\\s*,\\s*"));
    }
}
