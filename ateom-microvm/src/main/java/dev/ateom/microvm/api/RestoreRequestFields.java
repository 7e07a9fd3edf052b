package dev.ateom.microvm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.sandbox.RestoreOptions;

import java.util.List;

/**
 * The request-only fields of a clone ({@code allowCpuMismatch}): taken out of the body before the rest is read as
 * the sandbox spec, so they are never stored with the sandbox.
 */
final class RestoreRequestFields {
    static final String ALLOW_CPU_MISMATCH = "allowCpuMismatch";

    private RestoreRequestFields() {}

    /** Removes the fields from {@code body} and returns them; a non-boolean, or one without {@code fromSnapshot}, is a 400. */
    static RestoreOptions take(ObjectNode body) {
        JsonNode allow = body.remove(ALLOW_CPU_MISMATCH);
        if (allow == null || allow.isNull()) return RestoreOptions.DEFAULT;
        if (!allow.isBoolean()) throw invalid(ALLOW_CPU_MISMATCH, "must be true or false");
        if (!body.hasNonNull("fromSnapshot")) throw invalid(ALLOW_CPU_MISMATCH, "applies only to a clone (with fromSnapshot)");
        return new RestoreOptions(allow.booleanValue());
    }

    private static ApiException invalid(String field, String reason) {
        return ApiException.invalidFields(List.of(new Problem.FieldError(field, reason)));
    }
}
