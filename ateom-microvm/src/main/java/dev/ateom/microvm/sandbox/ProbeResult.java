package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The answer of {@code POST /v1/sandboxes/{id}/probe}: the guest probe's reply to one command. {@code ok} false is
 * the probe's own error ({@code errno}, {@code message}), e.g. {@code ENOENT} for {@code cat} of a missing file.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProbeResult(String sandboxId, String command, boolean ok, String output, String errno, String message, long elapsedMs) {}
