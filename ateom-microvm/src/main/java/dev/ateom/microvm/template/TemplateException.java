package dev.ateom.microvm.template;

/** A template request that cannot be done: {@code kind} says why, so the API layers pick their status. */
public final class TemplateException extends RuntimeException {
    /** Why a template request failed. */
    public enum Kind { INVALID, NOT_FOUND, TAKEN, IN_USE, NOT_READY }

    private final Kind kind;
    private final String field;

    public TemplateException(Kind kind, String field, String message) {
        super(message);
        this.kind = kind;
        this.field = field;
    }

    public TemplateException(Kind kind, String field, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.field = field;
    }

    public Kind kind() { return kind; }

    /** The request field at fault, or null. */
    public String field() { return field; }
}
