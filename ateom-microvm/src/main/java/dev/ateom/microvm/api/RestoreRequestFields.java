package dev.ateom.microvm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.sandbox.RestoreOptions;

import java.util.List;

/**
 * The request-only fields of a clone ({@code allowCpuMismatch}, {@code adopt}): taken out of the body before the rest is read as
 * the sandbox spec, so they are never stored with the sandbox.
 */
final class RestoreRequestFields {
    static final String ALLOW_CPU_MISMATCH = "allowCpuMismatch";
    static final String ADOPT = "adopt";

    private RestoreRequestFields() {}

    /** Removes the fields from {@code body} and returns them; a non-boolean, or one without {@code fromSnapshot}, is a 400. */
    static RestoreOptions take(ObjectNode body) {
        return new RestoreOptions(takeFlag(body, ALLOW_CPU_MISMATCH));
    }

    /**
     * Removes {@code adopt} and says whether it was true; an adopt names nothing but the snapshot (id, identity and spec
     * are the snapshot's), so any other field is a 400.
     */
    static boolean takeAdopt(ObjectNode body) {
        if (!takeFlag(body, ADOPT)) return false;
        for (var names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("fromSnapshot") && !name.equals(ALLOW_CPU_MISMATCH)) {
                throw invalid(name, "an adopt takes the sandbox's id, identity and spec from the snapshot: give only fromSnapshot");
            }
        }
        return true;
    }

    private static boolean takeFlag(ObjectNode body, String field) {
        JsonNode flag = body.remove(field);
        if (flag == null || flag.isNull()) return false;
        if (!flag.isBoolean()) throw invalid(field, "must be true or false");
        if (!body.hasNonNull("fromSnapshot")) throw invalid(field, "applies only to a clone or adopt (with fromSnapshot)");
        return flag.booleanValue();
    }

    private static ApiException invalid(String field, String reason) {
        return ApiException.invalidFields(List.of(new Problem.FieldError(field, reason)));
    }
}
