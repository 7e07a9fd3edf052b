package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.EgressSpec;
import dev.ateom.microvm.sandbox.InvalidSpecException;
import dev.ateom.microvm.sandbox.InvalidStateException;
import dev.ateom.microvm.sandbox.SandboxNetworks;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.time.Instant;
import java.util.List;

import static java.lang.System.Logger.Level.INFO;

/**
 * {@code PUT /v1/sandboxes/{id}/network/egress}: a new egress policy for a networked sandbox. A running one gets it
 * in its slot at once (one atomic nftables transaction: connections to what it now denies are cut at their next
 * packet); the spec keeps it either way, so every later resume and (unless the request says otherwise) every clone
 * of a later snapshot runs with it. A suspended sandbox's policy is only recorded.
 */
public final class EgressChange {
    /** How the refusals name this change. */
    public static final String WHAT = "change the egress policy of";
    private static final System.Logger LOG = System.getLogger(EgressChange.class.getName());
    private final OperationContext context;

    public EgressChange(OperationContext context) { this.context = context; }

    /** Refuses a policy with violations (a 400 naming each), before the sandbox is locked. */
    public static void requireValid(EgressSpec egress) {
        List<SpecViolation> violations = SandboxNetworks.checkEgress(egress, "egress");
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
    }

    /** Runs under the sandbox's lock; refused for a sandbox made without a network. The record as it is now. */
    public SandboxRecord run(SandboxEntry entry, EgressSpec egress) {
        SandboxRecord record = entry.record();
        if (!record.spec().hasNetwork()) {
            throw new InvalidSpecException(List.of(new SpecViolation("network", "sandbox " + record.id() + " was created without a network")));
        }
        switch (record.state()) {
            case RUNNING -> {
                LiveVm live = entry.live();
                if (live == null || live.slot() == null) throw new InvalidStateException(record.id(), record.state(), WHAT);
                context.networks().replaceEgress(live.slot(), egress);
            }
            case SUSPENDED -> { }
            default -> throw new InvalidStateException(record.id(), record.state(), WHAT);
        }
        // a request on the sandbox: its idle timeout counts from now
        context.transitions().apply(entry, record.withSpec(record.spec().withNetwork(record.spec().network().withEgress(egress)))
                .idleCountedFrom(Instant.now()));
        LOG.log(INFO, "egress policy of sandbox " + record.id() + " replaced" + (record.state() == SandboxState.RUNNING
                ? " and in force" : "; in force from the next resume") + ": allow " + egress.allow() + ", deny " + egress.deny());
        return entry.record();
    }
}
