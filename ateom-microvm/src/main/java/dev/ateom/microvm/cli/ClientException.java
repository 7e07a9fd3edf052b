package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** A client command that could not be done; carries the exit code and, for API errors, the problem document. */
final class ClientException extends RuntimeException {
    private final int exitCode;
    private final transient JsonNode problem;

    ClientException(int exitCode, String message) { this(exitCode, message, null); }

    ClientException(int exitCode, String message, JsonNode problem) {
        super(message);
        this.exitCode = exitCode;
        this.problem = problem;
    }

    int exitCode() { return exitCode; }

    JsonNode problem() { return problem; }
}
