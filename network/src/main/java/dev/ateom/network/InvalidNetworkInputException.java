package dev.ateom.network;

/** A sandbox's network request is invalid; {@link #field()} names the offending field (e.g. {@code network.ports[2].guest}). */
public final class InvalidNetworkInputException extends NetworkException {
    private final String field;
    private final String reason;

    public InvalidNetworkInputException(String field, String reason) {
        super(field + ": " + reason, null);
        this.field = field;
        this.reason = reason;
    }

    public String field() {
        return field;
    }

    public String reason() {
        return reason;
    }
}
