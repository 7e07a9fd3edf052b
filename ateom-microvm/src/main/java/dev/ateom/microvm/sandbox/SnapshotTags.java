package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What a client calls a snapshot it asks for (suspend, checkpoint): an optional {@code name}, unique among the
 * snapshots taken on this host, and {@code labels}, with Kubernetes' syntax and limits so a control plane can copy
 * its own names and labels over unchanged. Both are stored in the snapshot's manifest annotations.
 */
public record SnapshotTags(String name, Map<String, String> labels) {
    public static final SnapshotTags NONE = new SnapshotTags(null, Map.of());
    /** The most labels one snapshot carries (every listing reads them all). */
    public static final int MAX_LABELS = 64;
    /** A Kubernetes object name: lowercase DNS subdomain, here at most 63 characters so it fits one table column. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?");
    /** A label's name part and its value (the value may be empty): 63 characters of [A-Za-z0-9-_.], alphanumeric at both ends. */
    private static final Pattern LABEL_PART = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?");
    /** A label key's optional prefix: a lowercase DNS subdomain of at most 253 characters. */
    private static final Pattern PREFIX = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");

    public SnapshotTags {
        // sorted, so manifests and listings show them in one order; a null value is kept for violations() to name
        labels = labels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** Every problem, each naming {@code name} or {@code labels.<key>}; empty when the tags can be stored. */
    /** Refuses tags with violations (a 400 naming each), before anything is paused. */
    public void requireValid() {
        List<SpecViolation> violations = violations();
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
    }

    public List<SpecViolation> violations() {
        List<SpecViolation> out = new ArrayList<>();
        if (name != null) nameViolation(name, "name").ifPresent(out::add);
        if (labels.size() > MAX_LABELS) out.add(new SpecViolation("labels", "at most " + MAX_LABELS + " labels, got " + labels.size()));
        labels.forEach((key, value) -> {
            String field = "labels." + key;
            String keyProblem = keyProblem(key);
            if (keyProblem != null) {
                out.add(new SpecViolation(field, keyProblem));
            } else if (value == null) {
                out.add(new SpecViolation(field, "must be a string (use \"\" for an empty value)"));
            } else if (!value.isEmpty() && !LABEL_PART.matcher(value).matches()) {
                out.add(new SpecViolation(field, "value must be empty or at most 63 of A-Z, a-z, 0-9, '-', '_' and '.', "
                        + "starting and ending alphanumeric, was '" + value + "'"));
            }
        });
        return out;
    }

    /** The problem of a snapshot name given as {@code field}, if any (shared with the listing's {@code name} filter). */
    static Optional<SpecViolation> nameViolation(String name, String field) {
        if (NAME.matcher(name).matches()) return Optional.empty();
        return Optional.of(new SpecViolation(field, "must be 1-63 of a-z, 0-9, '-' and '.', starting and ending "
                + "alphanumeric, was '" + name + "'"));
    }

    /** Why {@code key} is not a label key ({@code [prefix/]name}), or null when it is one. */
    static String keyProblem(String key) {
        int slash = key.indexOf('/');
        String prefix = slash < 0 ? null : key.substring(0, slash);
        String part = slash < 0 ? key : key.substring(slash + 1);
        if (prefix != null && !PREFIX.matcher(prefix).matches()) {
            return "key prefix must be a lowercase DNS subdomain of at most 253 characters, was '" + prefix + "'";
        }
        if (!LABEL_PART.matcher(part).matches()) {
            return "key must be [prefix/]name with a name of 1-63 of A-Z, a-z, 0-9, '-', '_' and '.', starting and ending "
                    + "alphanumeric, was '" + key + "'";
        }
        return null;
    }
}
