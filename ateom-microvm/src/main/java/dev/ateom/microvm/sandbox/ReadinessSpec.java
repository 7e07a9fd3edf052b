package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * When a created or resumed sandbox counts as RUNNING: {@code none} right after CHV boots or resumes it,
 * {@code probe} once the guest's identity probe answers {@code ping} on vsock {@code port}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReadinessSpec(String type, Long port, Integer timeoutSeconds) {
    public static final ReadinessSpec NONE = new ReadinessSpec("none", null, null);
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;

    public boolean usesProbe() { return "probe".equals(type); }

    public int timeoutOrDefault() { return timeoutSeconds == null ? DEFAULT_TIMEOUT_SECONDS : timeoutSeconds; }
}
