package dev.ateom.microvm.template;

import dev.ateom.microvm.sandbox.IdentitySpec;
import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.OperationResult;
import dev.ateom.microvm.sandbox.SandboxManager;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxSpec;
import dev.ateom.microvm.sandbox.SnapshotCatalog.SnapshotSummary;
import dev.ateom.microvm.sandbox.SnapshotFilter;
import dev.ateom.microvm.sandbox.SnapshotTags;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Templates are named snapshots with the label {@value #LABEL}: a build boots the spec as a sandbox of its own, waits
 * for the guest's health route, suspends it into a snapshot of the template's name and deletes the sandbox (keeping
 * that snapshot). A sandbox made from a template is a clone of that snapshot.
 */
public final class TemplateService {
    public static final String LABEL = "ateom.dev/template";
    private static final System.Logger LOG = System.getLogger(TemplateService.class.getName());

    private final SandboxManager sandboxes;
    private final GuestHttpCheck health;

    public TemplateService(SandboxManager sandboxes, GuestHttpCheck health) {
        this.sandboxes = sandboxes;
        this.health = health;
    }

    /** Builds the template; on any failure the build sandbox and what it made are removed. */
    public Template create(TemplateRequest request) {
        if (request == null || request.name() == null) throw new TemplateException(TemplateException.Kind.INVALID, "name", "name is required");
        List<SpecViolation> violations = new SnapshotTags(request.name(), Map.of()).violations();
        if (!violations.isEmpty()) throw new TemplateException(TemplateException.Kind.INVALID, "name", violations.getFirst().reason());
        if (request.spec() == null) throw new TemplateException(TemplateException.Kind.INVALID, "spec", "spec is required");
        if (request.spec().isClone()) {
            throw new TemplateException(TemplateException.Kind.INVALID, "spec.fromSnapshot", "a template boots a spec; clone a template instead");
        }
        TemplateRequest.HealthCheck check = request.healthOrDefault();
        if (!check.pathOrDefault().startsWith("/") || check.pathOrDefault().chars().anyMatch(c -> c <= ' ')) {
            throw new TemplateException(TemplateException.Kind.INVALID, "health.path", "must start with / and hold no spaces or control characters");
        }
        if (check.timeoutOrDefault() < 1 || check.timeoutOrDefault() > 3600) {
            throw new TemplateException(TemplateException.Kind.INVALID, "health.timeoutSeconds", "must be 1-3600");
        }
        if (!sandboxes.snapshotCatalog().list(new SnapshotFilter(null, request.name(), Map.of())).isEmpty()) {
            throw new TemplateException(TemplateException.Kind.TAKEN, "name", "a snapshot or template named '" + request.name() + "' exists");
        }
        String builder = builderId();
        SandboxSpec spec = withIdAndIdentity(request.spec(), builder, request.name());
        try {
            OperationResult created = sandboxes.create(spec); // the spec's own problems are 400s naming the field
            Path vsock = Path.of(created.sandbox().runtime().vsockSocket());
            health.awaitHealthy(vsock, check.portOrDefault(), check.pathOrDefault(), Duration.ofSeconds(check.timeoutOrDefault()));
            OperationResult suspended = sandboxes.suspend(builder, new SnapshotTags(request.name(), Map.of(LABEL, "true")));
            sandboxes.delete(builder, false);
            LOG.log(INFO, "template " + request.name() + " is snapshot " + suspended.snapshotId());
            return find(request.name()).orElseThrow();
        } catch (RuntimeException e) {
            removeBuilder(builder);
            throw e;
        }
    }

    public List<Template> list() {
        List<SandboxRecord> records = sandboxes.list();
        return sandboxes.snapshotCatalog().list(new SnapshotFilter(null, null, Map.of(LABEL, "true"))).stream()
                .filter(s -> s.usable() && s.name() != null)
                .sorted(Comparator.comparing(SnapshotSummary::name))
                .map(s -> toTemplate(s, records))
                .toList();
    }

    public Optional<Template> find(String name) {
        if (name == null || !new SnapshotTags(name, Map.of()).violations().isEmpty()) return Optional.empty();
        List<SandboxRecord> records = sandboxes.list();
        return sandboxes.snapshotCatalog().list(new SnapshotFilter(null, name, Map.of(LABEL, "true"))).stream()
                .filter(SnapshotSummary::usable).findFirst().map(s -> toTemplate(s, records));
    }

    public Template require(String name) {
        return find(name).orElseThrow(() -> new TemplateException(TemplateException.Kind.NOT_FOUND, "name", "template '" + name + "' does not exist"));
    }

    /** Deletes the template's snapshot; refused while sandboxes cloned from it exist unless {@code force}. */
    public void delete(String name, boolean force) {
        Template template = require(name);
        if (template.sandboxes() > 0 && !force) {
            throw new TemplateException(TemplateException.Kind.IN_USE, "name", "template '" + name + "' has " + template.sandboxes()
                    + " sandbox(es); delete them first or force");
        }
        sandboxes.snapshotCatalog().delete(template.snapshotId(), true);
        LOG.log(INFO, "deleted template " + name + " (snapshot " + template.snapshotId() + ")");
    }

    private static Template toTemplate(SnapshotSummary s, List<SandboxRecord> records) {
        int users = (int) records.stream().filter(r -> s.id().equals(r.sourceSnapshotId())).count();
        return new Template(s.name(), s.id(), s.createdAt(), s.sizeBytes(), users);
    }

    private void removeBuilder(String builder) {
        try {
            sandboxes.delete(builder, true);
        } catch (NotFoundException gone) {
            // the create itself failed and left nothing
        } catch (RuntimeException e) {
            LOG.log(WARNING, "template build sandbox " + builder + " could not be removed: " + e.getMessage());
        }
    }

    private static String builderId() {
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        return "tpl-" + HexFormat.of().formatHex(random);
    }

    private static SandboxSpec withIdAndIdentity(SandboxSpec s, String id, String name) {
        IdentitySpec identity = s.identity() != null ? s.identity() : new IdentitySpec(name.replace('.', '-'), "templates");
        return new SandboxSpec(id, identity, s.vcpus(), s.memoryMib(), s.kernel(), s.initramfs(), s.cmdline(), s.rootfs(),
                s.durableDirs(), s.systemInfo(), s.readiness(), s.memoryRestoreMode(), null, s.network(), s.idle());
    }
}
