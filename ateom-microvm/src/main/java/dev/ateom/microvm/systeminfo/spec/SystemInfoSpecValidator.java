package dev.ateom.microvm.systeminfo.spec;

import dev.ateom.microvm.systeminfo.spec.ActorMetadataSource.MetadataItem;
import dev.ateom.microvm.systeminfo.spec.HostDirectorySource.KeyItem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Checks a {@link SystemInfoSpec} at the API boundary. Every violation names its JSON field path
 * below {@code prefix} (normally {@code systemInfo}). Unknown JSON fields are rejected earlier, by
 * Jackson with {@code FAIL_ON_UNKNOWN_PROPERTIES} (its default), which names the field's path too.
 */
public final class SystemInfoSpecValidator {
    private static final int MAX_MODE = 0777;

    private SystemInfoSpecValidator() {}

    public static void requireValid(SystemInfoSpec spec) {
        List<SpecViolation> violations = validate(spec, "systemInfo");
        if (!violations.isEmpty()) {
            throw new InvalidSystemInfoSpecException(violations);
        }
    }

    public static List<SpecViolation> validate(SystemInfoSpec spec, String prefix) {
        List<SpecViolation> out = new ArrayList<>();
        if (spec == null) {
            return out;
        }
        Map<String, String> volumeNames = new HashMap<>();
        for (int v = 0; v < spec.volumes().size(); v++) {
            String field = prefix + ".volumes[" + v + "]";
            VolumeSpec volume = spec.volumes().get(v);
            if (volume == null) {
                out.add(new SpecViolation(field, "is null"));
                continue;
            }
            checkName(volume.name(), field + ".name", volumeNames, out);
            validateVolume(volume, field, out);
        }
        return out;
    }

    private static void checkName(String name, String field, Map<String, String> seen, List<SpecViolation> out) {
        Optional<String> problem = CleanRelativePath.singleSegmentProblem(name);
        if (problem.isPresent()) {
            out.add(new SpecViolation(field, problem.get()));
            return;
        }
        String earlier = seen.putIfAbsent(name, field);
        if (earlier != null) {
            out.add(new SpecViolation(field, "duplicates the volume name '" + name + "' of " + earlier));
        }
    }

    private static void validateVolume(VolumeSpec volume, String field, List<SpecViolation> out) {
        checkMode(volume.defaultMode(), field + ".defaultMode", out);
        checkId(volume.owner(), field + ".owner", out);
        checkId(volume.group(), field + ".group", out);
        if (volume.sources().isEmpty()) {
            out.add(new SpecViolation(field + ".sources", "must list at least one source"));
        }
        // path -> field that declared it, sorted so a path's children follow it directly
        TreeMap<String, String> paths = new TreeMap<>();
        for (int s = 0; s < volume.sources().size(); s++) {
            String sourceField = field + ".sources[" + s + "]";
            SourceSpec source = volume.sources().get(s);
            if (source == null) {
                out.add(new SpecViolation(sourceField, "is null"));
            } else if ((source.actorMetadata() == null) == (source.hostDirectory() == null)) {
                out.add(new SpecViolation(sourceField, "must set exactly one of actorMetadata, hostDirectory"));
            } else if (source.actorMetadata() != null) {
                validateMetadata(source.actorMetadata(), sourceField + ".actorMetadata", paths, out);
            } else {
                validateHostDirectory(source.hostDirectory(), sourceField + ".hostDirectory", paths, out);
            }
        }
    }

    private static void validateMetadata(
            ActorMetadataSource source, String field, TreeMap<String, String> paths, List<SpecViolation> out) {
        if (source.items().isEmpty()) {
            out.add(new SpecViolation(field + ".items", "must list at least one item"));
        }
        for (int i = 0; i < source.items().size(); i++) {
            String itemField = field + ".items[" + i + "]";
            MetadataItem item = source.items().get(i);
            if (item == null) {
                out.add(new SpecViolation(itemField, "is null"));
                continue;
            }
            if (MetadataField.fromJsonName(item.field()).isEmpty()) {
                out.add(new SpecViolation(itemField + ".field",
                        "'" + item.field() + "' is not one of name, namespace, uid"));
            }
            checkItemPath(item.path(), itemField + ".path", paths, out);
        }
    }

    private static void validateHostDirectory(
            HostDirectorySource source, String field, TreeMap<String, String> paths, List<SpecViolation> out) {
        checkHostPath(source.path(), field + ".path", out);
        if (source.items() == null) {
            return;
        }
        if (source.items().isEmpty()) {
            out.add(new SpecViolation(field + ".items", "must list at least one item, or be omitted to project all files"));
        }
        for (int i = 0; i < source.items().size(); i++) {
            String itemField = field + ".items[" + i + "]";
            KeyItem item = source.items().get(i);
            if (item == null) {
                out.add(new SpecViolation(itemField, "is null"));
                continue;
            }
            CleanRelativePath.problem(item.key()).ifPresent(p -> out.add(new SpecViolation(itemField + ".key", p)));
            checkItemPath(item.path(), itemField + ".path", paths, out);
            checkMode(item.mode(), itemField + ".mode", out);
        }
    }

    private static void checkItemPath(String path, String field, TreeMap<String, String> paths, List<SpecViolation> out) {
        Optional<String> problem = CleanRelativePath.problem(path);
        if (problem.isPresent()) {
            out.add(new SpecViolation(field, problem.get()));
            return;
        }
        String earlier = paths.get(path);
        if (earlier != null) {
            out.add(new SpecViolation(field, "duplicates the path '" + path + "' of " + earlier));
            return;
        }
        // a file cannot also be a directory: 'a' conflicts with 'a/b' in either order
        for (String prefix = parent(path); prefix != null; prefix = parent(prefix)) {
            if (paths.containsKey(prefix)) {
                out.add(new SpecViolation(field, "'" + path + "' lies inside the file '" + prefix + "' of " + paths.get(prefix)));
                return;
            }
        }
        String child = paths.ceilingKey(path + "/");
        if (child != null && child.startsWith(path + "/")) {
            out.add(new SpecViolation(field, "'" + path + "' is a directory of the file '" + child + "' of " + paths.get(child)));
            return;
        }
        paths.put(path, field);
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }

    private static void checkHostPath(String path, String field, List<SpecViolation> out) {
        if (path == null || path.isEmpty()) {
            out.add(new SpecViolation(field, "is empty"));
        } else if (!path.startsWith("/")) {
            out.add(new SpecViolation(field, "must be an absolute host path"));
        } else if (path.length() > 1) {
            String rest = path.endsWith("/") ? path.substring(1, path.length() - 1) : path.substring(1);
            Optional<String> problem = CleanRelativePath.problem(rest)
                    .filter(p -> !p.startsWith("starts with '..'"));
            problem.ifPresent(p -> out.add(new SpecViolation(field, p)));
        }
    }

    private static void checkMode(FileMode mode, String field, List<SpecViolation> out) {
        if (mode != null && (mode.bits() < 0 || mode.bits() > MAX_MODE)) {
            out.add(new SpecViolation(field, String.format("%o is outside 0000-0777 (no setuid, setgid or sticky bits)", mode.bits())));
        }
    }

    private static void checkId(Integer id, String field, List<SpecViolation> out) {
        if (id != null && id < 0) {
            out.add(new SpecViolation(field, id + " is not a valid numeric id"));
        }
    }
}
