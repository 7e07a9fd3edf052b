package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What happens to a RUNNING sandbox nobody has used for {@code afterSeconds}: {@code suspend} or {@code delete}
 * (its snapshots are kept). Used means an API operation on the sandbox or, when its readiness probe is configured,
 * activity the guest reports; the deadline is in the sandbox's record (docs/decisions.md, "Idle timeouts").
 */
public record IdleSpec(Long afterSeconds, String action) {
    /** The longest timeout accepted: a year (a deadline must stay a sane instant). */
    static final long MAX_SECONDS = 366L * 24 * 3600;

    /** Violations of this spec, at {@code field}; {@code minimum} is the daemon's {@code --idle-minimum-seconds}. */
    public static List<SpecViolation> check(IdleSpec idle, Duration minimum, String field) {
        if (idle == null) return List.of();
        List<SpecViolation> out = new ArrayList<>();
        if (idle.afterSeconds == null || idle.afterSeconds < 1) {
            out.add(new SpecViolation(field + ".afterSeconds", "is required: a positive number of seconds"));
        } else if (idle.afterSeconds < minimum.toSeconds() || idle.afterSeconds > MAX_SECONDS) {
            out.add(new SpecViolation(field + ".afterSeconds", "must be " + minimum.toSeconds() + "-" + MAX_SECONDS
                    + " (this daemon's --idle-minimum-seconds is " + minimum.toSeconds() + "), got " + idle.afterSeconds));
        }
        if (!"suspend".equals(idle.action) && !"delete".equals(idle.action)) {
            out.add(new SpecViolation(field + ".action", "must be 'suspend' or 'delete', got '" + idle.action + "'"));
        }
        return out;
    }

    /** The operation the timeout runs. */
    @JsonIgnore
    public Operation operation() { return "delete".equals(action) ? Operation.DELETE : Operation.SUSPEND; }

    /** The deadline of a sandbox last used at {@code lastUse}. */
    public Instant deadlineFrom(Instant lastUse) { return lastUse.plusSeconds(afterSeconds); }
}
