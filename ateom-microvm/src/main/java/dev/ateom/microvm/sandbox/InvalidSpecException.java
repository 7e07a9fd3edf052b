package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.util.List;

/** A sandbox spec that breaks rules, every violation named by its field; the detail is the first one. */
public final class InvalidSpecException extends SandboxException {
    private final List<SpecViolation> violations;

    public InvalidSpecException(List<SpecViolation> violations) {
        super(violations.getFirst().field() + ": " + violations.getFirst().reason()
                + (violations.size() > 1 ? " (and " + (violations.size() - 1) + " more, see errors)" : ""), null, null, null);
        this.violations = List.copyOf(violations);
    }

    public List<SpecViolation> violations() { return violations; }
}
