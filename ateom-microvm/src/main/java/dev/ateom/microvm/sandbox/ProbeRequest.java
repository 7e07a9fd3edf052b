package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code POST /v1/sandboxes/{id}/probe}: one command line for the guest's probe (the fixture guest's
 * {@code ate-probe} speaks {@code ping}, {@code whoami}, {@code cat <path>}, {@code write <path> <data>}, ...) and how
 * long to wait for its answer.
 */
public record ProbeRequest(String command, Integer timeoutSeconds) {
    /** Longer lines are refused: the command is one line of a line protocol, not a file transfer. */
    public static final int MAX_COMMAND_LENGTH = 4096;
    public static final int DEFAULT_TIMEOUT_SECONDS = 10;
    public static final int MAX_TIMEOUT_SECONDS = 60;

    /** What is wrong with the request, field by field; empty when it can be sent. */
    public List<SpecViolation> violations() {
        List<SpecViolation> out = new ArrayList<>();
        if (command == null || command.isBlank()) {
            out.add(new SpecViolation("command", "is required: one line for the guest's probe, e.g. 'whoami'"));
        } else if (command.length() > MAX_COMMAND_LENGTH) {
            out.add(new SpecViolation("command", "is longer than " + MAX_COMMAND_LENGTH + " characters (" + command.length() + ")"));
        } else if (command.chars().anyMatch(c -> c == '\n' || c == '\r' || c == 0)) {
            // the probe reads one command per line: a newline would smuggle a second command in, a NUL cut the first
            out.add(new SpecViolation("command", "must be one line, without newline, carriage return or NUL characters"));
        }
        if (timeoutSeconds != null && (timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS)) {
            out.add(new SpecViolation("timeoutSeconds", "must be between 1 and " + MAX_TIMEOUT_SECONDS + ", was " + timeoutSeconds));
        }
        return out;
    }

    public Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds == null ? DEFAULT_TIMEOUT_SECONDS : timeoutSeconds);
    }
}
