package dev.ateom.microvm.systeminfo.spec;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown at the API boundary; the message lists every violation, one per line. */
public final class InvalidSystemInfoSpecException extends IllegalArgumentException {
    private final transient List<SpecViolation> violations;

    public InvalidSystemInfoSpecException(List<SpecViolation> violations) {
        super(violations.stream().map(SpecViolation::toString).collect(Collectors.joining("\n")));
        this.violations = List.copyOf(violations);
    }

    public List<SpecViolation> violations() {
        return violations;
    }
}
