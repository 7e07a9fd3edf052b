package dev.ateom.microvm.http;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * RFC 9457 problem details, with the sandbox id and state when the problem concerns one sandbox and,
 * for an invalid spec, every field error.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(String type, String title, int status, String detail, String instance, String sandboxId, String state,
                      List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://ateom.dev/problems/";

    public static Problem of(ApiException e, String instance) {
        return new Problem(TYPE_BASE + e.type(), e.title(), e.status(), e.detail(), instance, e.sandboxId(), e.state(), e.errors());
    }

    /** One invalid field of a request: its JSON path and why. */
    public record FieldError(String field, String reason) {}
}
