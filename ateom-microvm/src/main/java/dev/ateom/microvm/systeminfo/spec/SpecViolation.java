package dev.ateom.microvm.systeminfo.spec;

/** One problem of a spec: the JSON field path (e.g. {@code systemInfo.volumes[0].name}) and the reason. */
public record SpecViolation(String field, String reason) {
    @Override
    public String toString() {
        return field + ": " + reason;
    }
}
