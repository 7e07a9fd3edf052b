package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which snapshots a listing shows ({@code GET /v1/snapshots?sandbox=&name=&label=k=v}): all given conditions must
 * hold, every label included. A null {@code sandbox} or {@code name} and no labels match every snapshot.
 */
public record SnapshotFilter(String sandbox, String name, Map<String, String> labels) {
    public static final SnapshotFilter ALL = new SnapshotFilter(null, null, Map.of());

    public SnapshotFilter {
        labels = labels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /**
     * The filter of a listing's query parameters ({@code label} may repeat, each {@code key=value}); refused with
     * every problem naming its parameter ({@code sandbox}, {@code name} or {@code label}).
     */
    public static SnapshotFilter parse(String sandbox, String name, List<String> labels) {
        List<SpecViolation> out = new ArrayList<>();
        if (sandbox != null && !SandboxSpecValidator.ID.matcher(sandbox).matches()) {
            out.add(new SpecViolation("sandbox", "must be a sandbox id (a DNS label), was '" + sandbox + "'"));
        }
        if (name != null) SnapshotTags.nameViolation(name, "name").ifPresent(out::add);
        Map<String, String> wanted = new TreeMap<>();
        for (String label : labels) {
            int eq = label.indexOf('=');
            if (eq < 0) {
                out.add(new SpecViolation("label", "must be key=value, was '" + label + "'"));
                continue;
            }
            String key = label.substring(0, eq);
            String value = label.substring(eq + 1);
            List<SpecViolation> problems = new SnapshotTags(null, Map.of(key, value)).violations();
            if (!problems.isEmpty()) {
                out.add(new SpecViolation("label", problems.getFirst().reason()));
            } else if (wanted.containsKey(key) && !wanted.get(key).equals(value)) {
                out.add(new SpecViolation("label", "key '" + key + "' is given with two values; a snapshot has one"));
            }
            wanted.put(key, value);
        }
        if (!out.isEmpty()) throw new InvalidSpecException(out);
        return new SnapshotFilter(sandbox, name, wanted);
    }

    /** Whether the filter asks for anything (an empty one lists every snapshot, the unusable ones included). */
    public boolean isEmpty() { return sandbox == null && name == null && labels.isEmpty(); }

    /** An unusable snapshot (its manifest unreadable) matches only the empty filter: nothing is known of it. */
    public boolean matches(SnapshotCatalog.SnapshotSummary snapshot) {
        if (isEmpty()) return true;
        if (!snapshot.usable()) return false;
        if (sandbox != null && !sandbox.equals(snapshot.sourceSandboxId())) return false;
        if (name != null && !name.equals(snapshot.name())) return false;
        return labels.entrySet().stream().allMatch(wanted -> wanted.getValue().equals(snapshot.labels().get(wanted.getKey())));
    }
}
