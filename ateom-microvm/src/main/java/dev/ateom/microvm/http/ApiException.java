package dev.ateom.microvm.http;

import java.util.List;

/**
 * A request the API refuses or could not serve, answered as {@code application/problem+json}.
 * {@code type} is a short slug (e.g. {@code invalid-spec}); the sandbox id and state are added when known.
 */
public class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String title;
    private final String sandboxId;
    private final String state;
    private final List<Problem.FieldError> errors;

    public ApiException(int status, String type, String title, String detail) {
        this(status, type, title, detail, null, null, null);
    }

    public ApiException(int status, String type, String title, String detail, String sandboxId, String state, Throwable cause) {
        super(detail, cause);
        this.status = status;
        this.type = type;
        this.title = title;
        this.sandboxId = sandboxId;
        this.state = state;
        this.errors = List.of();
    }

    private ApiException(String detail, List<Problem.FieldError> errors) {
        super(detail);
        this.status = 400;
        this.type = "invalid-spec";
        this.title = "Invalid sandbox spec";
        this.sandboxId = null;
        this.state = null;
        this.errors = List.copyOf(errors);
    }

    /** 400 listing every invalid field; the detail is the first one, so a reader sees a reason at once. */
    public static ApiException invalidFields(List<Problem.FieldError> errors) {
        String detail = errors.getFirst().field() + ": " + errors.getFirst().reason()
                + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more, see errors)" : "");
        return new ApiException(detail, errors);
    }

    public static ApiException badRequest(String detail) {
        return new ApiException(400, "invalid-request", "The request is invalid", detail);
    }

    public int status() { return status; }

    public String type() { return type; }

    public String title() { return title; }

    public String detail() { return getMessage(); }

    public String sandboxId() { return sandboxId; }

    public String state() { return state; }

    public List<Problem.FieldError> errors() { return errors; }
}
