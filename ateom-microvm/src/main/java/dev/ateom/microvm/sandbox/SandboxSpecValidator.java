package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SourceSpec;
import dev.ateom.microvm.systeminfo.spec.SpecViolation;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpec;
import dev.ateom.microvm.systeminfo.spec.SystemInfoSpecValidator;
import dev.ateom.microvm.systeminfo.spec.VolumeSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Every rule of a sandbox spec; each violation names its JSON field. */
public final class SandboxSpecValidator {
    /** DNS-1123 label: usable as a directory name, a hostname and a Kubernetes name. */
    public static final Pattern ID = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    /** Snapshot ids are {@code <sandbox-id>-<8 hex>}. */
    public static final Pattern SNAPSHOT_ID = Pattern.compile("[a-z0-9]([a-z0-9-]{0,80}[a-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    private static final Pattern DURABLE_DIR = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
    private static final int MAX_DURABLE_DIRS = 16;
    private static final int MAX_CMDLINE = 2048;

    private SandboxSpecValidator() {}

    /** A request: a create, or a clone whose guest comes from the snapshot (checked by {@link #validateStored}). */
    public static List<SpecViolation> validate(SandboxSpec spec, HostPathPolicy paths) {
        List<SpecViolation> out = new ArrayList<>();
        if (spec.id() != null && !ID.matcher(spec.id()).matches()) {
            out.add(new SpecViolation("id", "must be a DNS label: 1-63 of a-z, 0-9 and '-', starting and ending alphanumeric"));
        }
        identity(spec.identity(), out);
        readiness(spec.readiness(), out);
        if (spec.isClone()) {
            if (spec.fromSnapshot().isBlank()) out.add(new SpecViolation("fromSnapshot", "must name a snapshot"));
            fromSnapshotOnly(spec, out);
        } else {
            guest(spec, paths, out);
        }
        out.addAll(SystemInfoSpecValidator.validate(spec.systemInfo(), "systemInfo"));
        hostDirectories(spec.systemInfo(), paths, out);
        return out;
    }

    /**
     * The spec a clone would run with, built from a snapshot's stored spec: a snapshot directory can be edited on
     * disk, so what it holds is checked like a create request, the allowed roots included. Each violation is
     * reported on {@code fromSnapshot}, naming the stored field.
     */
    public static List<SpecViolation> validateStored(SandboxSpec effective, HostPathPolicy paths) {
        return storedViolations(validate(effective.withFromSnapshot(null), paths));
    }

    /** Violations found in a snapshot's stored spec, reported on the request field that named the snapshot. */
    public static List<SpecViolation> storedViolations(List<SpecViolation> violations) {
        return violations.stream()
                .map(v -> new SpecViolation("fromSnapshot", "the snapshot's sandbox spec is refused: " + v.field() + " " + v.reason()))
                .toList();
    }

    private static void identity(IdentitySpec identity, List<SpecViolation> out) {
        if (identity == null) {
            out.add(new SpecViolation("identity", "is required ({\"name\": ..., \"namespace\": ...})"));
            return;
        }
        if (identity.name() == null || !NAME.matcher(identity.name()).matches()) {
            out.add(new SpecViolation("identity.name", "must be 1-253 of a-z, 0-9, '.', '-', starting and ending alphanumeric"));
        }
        if (identity.namespace() == null || !ID.matcher(identity.namespace()).matches()) {
            out.add(new SpecViolation("identity.namespace", "must be a DNS label: 1-63 of a-z, 0-9 and '-'"));
        }
    }

    private static void readiness(ReadinessSpec readiness, List<SpecViolation> out) {
        if (readiness == null) return;
        switch (readiness.type() == null ? "" : readiness.type()) {
            case "none" -> {
                if (readiness.port() != null) out.add(new SpecViolation("readiness.port", "only applies to type 'probe'"));
                if (readiness.timeoutSeconds() != null) out.add(new SpecViolation("readiness.timeoutSeconds", "only applies to type 'probe'"));
            }
            case "probe" -> {
                if (readiness.port() == null || readiness.port() < 1 || readiness.port() > 0xFFFF_FFFEL) {
                    out.add(new SpecViolation("readiness.port", "is required for type 'probe': a vsock port 1-4294967294"));
                }
                if (readiness.timeoutSeconds() != null && (readiness.timeoutSeconds() < 1 || readiness.timeoutSeconds() > 600)) {
                    out.add(new SpecViolation("readiness.timeoutSeconds", "must be 1-600"));
                }
            }
            default -> out.add(new SpecViolation("readiness.type", "must be 'none' or 'probe', got '" + readiness.type() + "'"));
        }
    }

    private static void guest(SandboxSpec spec, HostPathPolicy paths, List<SpecViolation> out) {
        if (spec.vcpus() == null || spec.vcpus() < 1 || spec.vcpus() > 64) out.add(new SpecViolation("vcpus", "must be 1-64"));
        if (spec.memoryMib() == null || spec.memoryMib() < 64 || spec.memoryMib() > 262_144) {
            out.add(new SpecViolation("memoryMib", "must be 64-262144 (MiB)"));
        }
        hostPath("kernel", spec.kernel(), true, HostPathPolicy.Use.IMAGE_FILE, paths, out);
        hostPath("initramfs", spec.initramfs(), false, HostPathPolicy.Use.IMAGE_FILE, paths, out);
        if (spec.cmdline() != null && (spec.cmdline().length() > MAX_CMDLINE || spec.cmdline().chars().anyMatch(c -> c < 0x20))) {
            out.add(new SpecViolation("cmdline", "must be at most " + MAX_CMDLINE + " printable characters"));
        }
        hostPath("rootfs", spec.rootfs(), true, HostPathPolicy.Use.IMAGE_DIRECTORY, paths, out);
        List<String> dirs = spec.durableDirsOrEmpty();
        if (dirs.size() > MAX_DURABLE_DIRS) out.add(new SpecViolation("durableDirs", "at most " + MAX_DURABLE_DIRS + " entries"));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < dirs.size(); i++) {
            String name = dirs.get(i);
            String field = "durableDirs[" + i + "]";
            if (name == null || !DURABLE_DIR.matcher(name).matches() || name.equals(".") || name.equals("..")) {
                out.add(new SpecViolation(field, "must be a plain directory name (letters, digits, '_', '.', '-'; at most 128)"));
            } else if (!seen.add(name)) {
                out.add(new SpecViolation(field, "duplicates '" + name + "'"));
            }
        }
    }

    private static void fromSnapshotOnly(SandboxSpec spec, List<SpecViolation> out) {
        String why = "cannot be set when cloning: it comes from the snapshot";
        if (spec.vcpus() != null) out.add(new SpecViolation("vcpus", why));
        if (spec.memoryMib() != null) out.add(new SpecViolation("memoryMib", why));
        if (spec.kernel() != null) out.add(new SpecViolation("kernel", why));
        if (spec.initramfs() != null) out.add(new SpecViolation("initramfs", why));
        if (spec.cmdline() != null) out.add(new SpecViolation("cmdline", why));
        if (spec.rootfs() != null) out.add(new SpecViolation("rootfs", why));
        if (spec.durableDirs() != null) out.add(new SpecViolation("durableDirs", why));
    }

    private static void hostPath(String field, String value, boolean required, HostPathPolicy.Use use, HostPathPolicy paths,
                                 List<SpecViolation> out) {
        if (value == null) {
            if (required) out.add(new SpecViolation(field, "is required: an absolute path to the guest " + field));
            return;
        }
        paths.problem(value, use).ifPresent(problem -> out.add(new SpecViolation(field, problem)));
    }

    /** Sources whose path passed the syntax checks of {@link SystemInfoSpecValidator} are checked against the roots. */
    private static void hostDirectories(SystemInfoSpec systemInfo, HostPathPolicy paths, List<SpecViolation> out) {
        if (systemInfo == null) return;
        for (int v = 0; v < systemInfo.volumes().size(); v++) {
            VolumeSpec volume = systemInfo.volumes().get(v);
            if (volume == null || volume.sources() == null) continue;
            for (int s = 0; s < volume.sources().size(); s++) {
                SourceSpec source = volume.sources().get(s);
                if (source == null || source.hostDirectory() == null) continue;
                String path = source.hostDirectory().path();
                String field = "systemInfo.volumes[" + v + "].sources[" + s + "].hostDirectory.path";
                boolean alreadyRefused = out.stream().anyMatch(violation -> violation.field().equals(field));
                if (path != null && !alreadyRefused) {
                    paths.problem(path, HostPathPolicy.Use.HOST_DIRECTORY).ifPresent(p -> out.add(new SpecViolation(field, p)));
                }
            }
        }
    }
}
