package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;
import dev.ateom.microvm.timing.OperationProgress;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Everything a create or clone request must pass before a sandbox is registered for it: the request's own rules,
 * then for a clone the snapshot (pulled from the store when it is not here), the spec the clone would really run
 * with (the snapshot's stored spec plus the request's overrides, checked like a request: a tampered snapshot
 * must not widen what a token holder may ask for), the snapshot's config.json as ateom writes it, and the NIC rule.
 * Nothing is made on this host but a pulled snapshot.
 */
public final class NewSandboxAdmission {
    /**
     * What an admitted request becomes: the new sandbox's id and spec, and for a clone the snapshot it restores and how
     * long pulling it from the store took (null when it was here).
     */
    public record Plan(String id, SandboxSpec spec, SnapshotCatalog.SnapshotHandle source, Duration pulled) {
        public Operation operation() { return source == null ? Operation.CREATE : Operation.CLONE; }
    }

    private final HostPathPolicy paths;
    private final SnapshotCatalog snapshots;
    private final SandboxNetworks networks;
    private final Duration idleMinimum;

    public NewSandboxAdmission(HostPathPolicy paths, SnapshotCatalog snapshots, SandboxNetworks networks, Duration idleMinimum) {
        this.paths = paths;
        this.idleMinimum = idleMinimum;
        this.snapshots = snapshots;
        this.networks = networks;
    }

    /** The request's own rules, every violation named by its field. */
    public void checkRequest(SandboxSpec request) {
        List<SpecViolation> violations = new ArrayList<>(SandboxSpecValidator.validate(request, paths));
        violations.addAll(networks.check(request.network(), "network"));
        violations.addAll(IdleSpec.check(request.idle(), idleMinimum, "idle"));
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
    }

    /**
     * The plan for a checked request; {@code stateOfTaken} gives the state of a sandbox that already has the id
     * (null when the id is free), so a clone to a taken id is refused before anything is pulled.
     */
    public Plan plan(SandboxSpec request, String id, RestoreOptions options, Function<String, SandboxState> stateOfTaken) {
        if (!request.isClone()) {
            if (request.hasNetwork()) networks.requireAvailable(null, null);
            return new Plan(id, request.withId(id), null, null);
        }
        SandboxState taken = stateOfTaken.apply(id);
        if (taken != null) throw new AlreadyExistsException(id, taken);
        // a pull is the long part of such a clone: an asynchronous one is admitted before it, to report its bytes
        if (snapshots.wouldPull(request.fromSnapshot())) OperationProgress.current().admitted(id);
        Duration pulled = snapshots.ensureLocal(request.fromSnapshot(), options.allowCpuMismatch(), new PullFor.Sandbox(id)).orElse(null);
        SnapshotCatalog.SnapshotHandle opened = snapshots.open(request.fromSnapshot());
        requireSameNic(request, opened);
        SandboxSpec spec = request.cloneOf(opened.sandboxSpec(), id);
        List<SpecViolation> stored = new ArrayList<>(SandboxSpecValidator.validateStored(spec, paths));
        stored.addAll(SandboxSpecValidator.storedViolations(networks.check(spec.network(), "network")));
        if (!stored.isEmpty()) throw new InvalidSpecException(stored);
        SnapshotCatalog.SnapshotHandle source = SnapshotRestores.requireConfigAsWritten(opened);
        if (spec.hasNetwork()) networks.requireAvailable(null, null);
        return new Plan(id, spec, source, pulled);
    }

    /** A clone has the NIC its snapshot's VM had: a network can be neither added nor taken away. */
    private static void requireSameNic(SandboxSpec request, SnapshotCatalog.SnapshotHandle source) {
        if (request.network() == null) return;
        boolean sourceHasNic = source.sandboxSpec().hasNetwork();
        if (request.network().isOn() != sourceHasNic) {
            throw new InvalidSpecException(List.of(new SpecViolation("network", sourceHasNic
                    ? "snapshot " + source.id() + " was taken with a network: its clones have one too (give a policy, or leave network out)"
                    : "snapshot " + source.id() + " was taken without a network: its clones cannot have one")));
        }
    }
}
