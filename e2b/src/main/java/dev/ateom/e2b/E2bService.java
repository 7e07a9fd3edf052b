package dev.ateom.e2b;

import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.EgressSpec;
import dev.ateom.microvm.sandbox.IdentitySpec;
import dev.ateom.microvm.sandbox.NetworkSpec;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxIds;
import dev.ateom.microvm.sandbox.SandboxManager;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.sandbox.SandboxState;
import dev.ateom.microvm.template.Template;
import dev.ateom.microvm.template.TemplateService;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * E2B's sandbox verbs on ateom's: a template is a named snapshot, create is a clone of it, pause and resume are
 * suspend and resume, connect resumes a paused sandbox and moves its deadline, kill is a delete with its snapshots.
 * Only sandboxes made through this API exist here; the daemon's other sandboxes are 404s.
 */
final class E2bService {
    private static final System.Logger LOG = System.getLogger(E2bService.class.getName());
    private static final String NAMESPACE = "e2b";
    private static final Duration KILL_PATIENCE = Duration.ofSeconds(60);

    private final SandboxManager sandboxes;
    private final TemplateService templates;
    private final E2bSandboxStore store;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();
    /**
     * Sandboxes being created or resumed: a created one's file exists before its record, which must not make it look
     * deleted; and neither may meet its deadline before the new one is written (the old one has passed).
     */
    private final Set<String> starting = ConcurrentHashMap.newKeySet();

    E2bService(SandboxManager sandboxes, TemplateService templates, E2bSandboxStore store, InstantSource clock) {
        this.sandboxes = sandboxes;
        this.templates = templates;
        this.store = store;
        this.clock = clock;
    }

    /** A sandbox with its daemon record. */
    record Current(E2bSandbox sandbox, SandboxRecord record) {
        boolean paused() { return record.state() == SandboxState.SUSPENDED; }

        /** Paused or on the way there: a second pause is a conflict. */
        boolean pausing() { return paused() || record.state() == SandboxState.SUSPENDING; }
    }

    Current create(CreateRequest request) {
        Template template = templates.find(request.templateID())
                .orElseThrow(() -> E2bError.notFound("template '" + request.templateID() + "' not found"));
        NetworkSpec network = network(request, template);
        String id = SandboxIds.generate();
        String token = request.secure() ? HexFormat.of().formatHex(randomBytes()) : null;
        Instant now = clock.instant();
        E2bSandbox sandbox = new E2bSandbox(id, template.name(), request.metadata(), request.envVars(), request.secure(), token,
                request.autoPause(), request.autoResume(), request.allowInternetAccess(), request.allowOut(), request.denyOut(),
                now, now.plusSeconds(request.timeoutSeconds()));
        starting.add(id);
        store.save(sandbox); // first, so a sandbox never runs without its deadline on disk
        try {
            OperationResult result = sandboxes.create(new SandboxSpec(id, new IdentitySpec(id, NAMESPACE), null, null, null, null, null,
                    null, null, null, null, null, template.snapshotId(), network, null));
            AgentInit.send(vsock(result.sandbox()), sandbox.envVars(), token);
            Instant started = clock.instant();
            sandbox = sandbox.restarted(started, started.plusSeconds(request.timeoutSeconds()));
            store.save(sandbox);
            LOG.log(INFO, "e2b: sandbox " + id + " from template " + template.name());
            return new Current(sandbox, sandboxes.get(id));
        } catch (RuntimeException e) {
            discard(id);
            throw e;
        } finally {
            starting.remove(id);
        }
    }

    Current require(String id) {
        E2bSandbox sandbox = store.find(id).orElseThrow(() -> E2bError.sandboxNotFound(id));
        try {
            return new Current(sandbox, sandboxes.get(id));
        } catch (NotFoundException e) {
            if (!starting.contains(id)) store.remove(id); // deleted through the daemon's own API meanwhile
            throw E2bError.sandboxNotFound(id);
        }
    }

    /** Every sandbox of this API that still exists. */
    List<Current> all() {
        List<Current> out = new ArrayList<>();
        for (E2bSandbox sandbox : store.all()) {
            try {
                out.add(new Current(sandbox, sandboxes.get(sandbox.sandboxID())));
            } catch (NotFoundException e) {
                if (!starting.contains(sandbox.sandboxID())) store.remove(sandbox.sandboxID());
            }
        }
        return out;
    }

    /** Kill works in any state: an operation under way (a pause from the deadline) is waited for, at most {@link #KILL_PATIENCE}. */
    void kill(String id) {
        require(id);
        Instant giveUp = clock.instant().plus(KILL_PATIENCE);
        while (true) {
            try {
                sandboxes.delete(id, true);
                break;
            } catch (BusyException e) {
                if (clock.instant().isAfter(giveUp)) throw e;
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        store.remove(id);
        LOG.log(INFO, "e2b: killed sandbox " + id);
    }

    void pause(String id) {
        Current current = require(id);
        if (current.pausing()) throw E2bError.conflict("sandbox '" + id + "' is already paused");
        sandboxes.suspend(id);
    }

    /** Resumes a paused sandbox with a fresh deadline; 409 when it runs. */
    Current resume(String id, int timeoutSeconds) {
        Current current = require(id);
        if (!current.paused()) throw E2bError.conflict("sandbox '" + id + "' is already running");
        return resumePaused(current.sandbox(), Duration.ofSeconds(timeoutSeconds));
    }

    /** Connect: a paused sandbox is resumed; a running one keeps running, its deadline moved out to now + timeout if that is later. */
    Current connect(String id, int timeoutSeconds) {
        Current current = require(id);
        if (current.paused()) return resumePaused(current.sandbox(), Duration.ofSeconds(timeoutSeconds));
        Instant end = clock.instant().plusSeconds(timeoutSeconds);
        if (end.isAfter(current.sandbox().endAt())) store.save(current.sandbox().withEndAt(end));
        return require(id);
    }

    /** A request through the proxy to a paused sandbox with auto-resume: resumed for the length of its last lifetime. */
    Current resumeForTraffic(Current current) {
        Duration lifetime = Duration.between(current.sandbox().startedAt(), current.sandbox().endAt());
        return resumePaused(current.sandbox(), lifetime.isNegative() || lifetime.isZero()
                ? Duration.ofSeconds(CreateRequest.DEFAULT_TIMEOUT_SECONDS) : lifetime);
    }

    void setTimeout(String id, int timeoutSeconds) {
        Current current = require(id);
        store.save(current.sandbox().withEndAt(clock.instant().plusSeconds(timeoutSeconds)));
    }

    /** Refresh: the deadline becomes now + duration when that is later (a refresh never shortens a lifetime). */
    void refresh(String id, int durationSeconds) {
        Current current = require(id);
        Instant end = clock.instant().plusSeconds(durationSeconds);
        if (end.isAfter(current.sandbox().endAt())) store.save(current.sandbox().withEndAt(end));
    }

    /** What the lifetime scheduler does at a RUNNING sandbox's deadline: pause it (autoPause) or kill it. */
    void expire(String id) {
        Optional<E2bSandbox> sandbox = store.find(id);
        if (sandbox.isEmpty()) return;
        Current current = require(id);
        if (starting(id) || current.record().state() != SandboxState.RUNNING || clock.instant().isBefore(current.sandbox().endAt())) return;
        if (current.sandbox().autoPause()) {
            LOG.log(INFO, "e2b: sandbox " + id + " reached its timeout: pausing");
            sandboxes.suspend(id);
        } else {
            LOG.log(INFO, "e2b: sandbox " + id + " reached its timeout: killing");
            kill(id);
        }
    }

    /** A sandbox of this API by id, if it is one. */
    Optional<E2bSandbox> find(String id) { return store.find(id); }

    List<Template> templates() { return templates.list(); }

    private Current resumePaused(E2bSandbox sandbox, Duration lifetime) {
        String id = sandbox.sandboxID();
        if (!starting.add(id)) throw E2bError.conflict("sandbox '" + id + "' is being started");
        try {
            OperationResult result = sandboxes.resume(id);
            AgentInit.send(vsock(result.sandbox()), sandbox.envVars(), sandbox.envdAccessToken());
            Instant started = clock.instant();
            E2bSandbox resumed = sandbox.restarted(started, started.plus(lifetime));
            store.save(resumed);
            return new Current(resumed, sandboxes.get(id));
        } finally {
            starting.remove(id);
        }
    }

    /** Whether a create or resume of the sandbox runs (its deadline is about to be renewed). */
    boolean starting(String id) { return starting.contains(id); }

    /**
     * The clone's network: the template's unless the request asks for egress; asking for internet access or rules where the
     * template has no NIC is a 400 (a clone cannot add a NIC its snapshot lacks).
     */
    private NetworkSpec network(CreateRequest request, Template template) {
        boolean asks = request.allowOut() != null || request.denyOut() != null || request.allowInternetAccess() != null;
        if (!asks) return null;
        boolean hasNic = sandboxes.snapshotCatalog().open(template.snapshotId()).sandboxSpec().hasNetwork();
        if (!hasNic) {
            if (Boolean.FALSE.equals(request.allowInternetAccess()) && request.allowOut() == null && request.denyOut() == null) return null;
            throw E2bError.badRequest("template '" + template.name() + "' has no network, so allow_internet_access and network rules "
                    + "cannot be given (build the template from a spec with a network)");
        }
        List<String> allow = request.allowOut() == null ? new ArrayList<>() : new ArrayList<>(request.allowOut());
        List<String> deny = request.denyOut() == null ? new ArrayList<>() : new ArrayList<>(request.denyOut());
        if (Boolean.FALSE.equals(request.allowInternetAccess())) deny.add("0.0.0.0/0");
        return new NetworkSpec(null, new EgressSpec(allow.isEmpty() ? null : allow, deny.isEmpty() ? null : deny), null);
    }

    private void discard(String id) {
        store.remove(id);
        try {
            sandboxes.delete(id, true);
        } catch (NotFoundException gone) {
            // the create left nothing
        } catch (RuntimeException e) {
            LOG.log(WARNING, "e2b: sandbox " + id + " of a failed create could not be removed: " + e.getMessage());
        }
    }

    private static Path vsock(SandboxRecord record) { return Path.of(record.runtime().vsockSocket()); }

    private byte[] randomBytes() {
        byte[] bytes = new byte[24];
        random.nextBytes(bytes);
        return bytes;
    }
}
