package dev.ateom.chv;

import java.util.List;

/**
 * CHV answered with an error status. The body is CHV's error chain (a JSON array of strings, outermost
 * first); the typed subclasses tell the common cases apart: {@link ChvNotFoundException} 404,
 * {@link ChvBadRequestException} 400, {@link ChvConflictException} 409, {@link ChvInvalidStateException} for the
 * 500s CHV uses for invalid state transitions. Other statuses and 500s are this class.
 */
public sealed class ChvApiException extends ChvException
        permits ChvNotFoundException, ChvBadRequestException, ChvConflictException, ChvInvalidStateException {
    private final int status;
    private final List<String> chain;

    ChvApiException(String endpoint, int status, List<String> chain) {
        super(endpoint, status + " " + (chain.isEmpty() ? "(empty body)" : String.join(": ", chain)), null);
        this.status = status;
        this.chain = List.copyOf(chain);
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public List<String> chain() {
        return chain;
    }

    /** The innermost (most specific) message, or "" for an empty body. */
    public String rootCause() {
        return chain.isEmpty() ? "" : chain.getLast();
    }

    /** The typed exception for a CHV error answer. */
    static ChvApiException of(String endpoint, int status, List<String> chain) {
        return switch (status) {
            case 400 -> new ChvBadRequestException(endpoint, chain);
            case 404 -> new ChvNotFoundException(endpoint, chain);
            case 409 -> new ChvConflictException(endpoint, chain);
            default -> ChvInvalidStateException.matches(chain)
                    ? new ChvInvalidStateException(endpoint, status, chain)
                    : new ChvApiException(endpoint, status, chain);
        };
    }
}
