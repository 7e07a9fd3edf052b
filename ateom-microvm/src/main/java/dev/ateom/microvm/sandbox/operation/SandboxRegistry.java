package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.NotFoundException;
import dev.ateom.microvm.sandbox.SandboxRecord;
import dev.ateom.microvm.sandbox.SandboxState;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sandboxes of this daemon by id. An entry is here from the moment an operation admits its id (so a second
 * create of the same id is refused) until its delete finished; only a sandbox whose record is on disk stays.
 */
public final class SandboxRegistry {
    private final Map<String, SandboxEntry> entries = new ConcurrentHashMap<>();

    /** Every sandbox's latest record, by id. */
    public List<SandboxRecord> records() {
        return entries.values().stream().map(SandboxEntry::record).sorted(Comparator.comparing(SandboxRecord::id)).toList();
    }

    /** The sandbox's entry; a 404 problem when there is none. */
    public SandboxEntry entry(String id) {
        SandboxEntry entry = entries.get(id);
        if (entry == null) throw NotFoundException.sandbox(id);
        return entry;
    }

    public Optional<SandboxEntry> find(String id) { return Optional.ofNullable(entries.get(id)); }

    /** The state of the sandbox with this id, or null when there is none. */
    public SandboxState stateOf(String id) { return find(id).map(e -> e.record().state()).orElse(null); }

    /** Admits {@code entry} unless its id is taken; returns the entry that holds the id already, or null. */
    public SandboxEntry putIfAbsent(SandboxEntry entry) { return entries.putIfAbsent(entry.record().id(), entry); }

    /** Removes the id's entry if it is still {@code entry} (not one admitted since). */
    public void remove(SandboxEntry entry) { entries.remove(entry.record().id(), entry); }

    public boolean contains(String id) { return entries.containsKey(id); }

    public Set<String> ids() { return entries.keySet(); }

    public Collection<SandboxEntry> entries() { return entries.values(); }

    /** How many sandboxes are in each state (every state listed, for metrics). */
    public Map<String, Long> countByState() {
        Map<String, Long> counts = new TreeMap<>();
        for (SandboxState s : SandboxState.values()) counts.put(s.name(), 0L);
        entries.values().forEach(e -> counts.merge(e.record().state().name(), 1L, Long::sum));
        return counts;
    }

    /** Whether a snapshot is the one a suspended sandbox would resume from (deleting it would strand the sandbox). */
    public boolean isLatestOfSuspended(String snapshotId) {
        return entries.values().stream().map(SandboxEntry::record)
                .anyMatch(r -> snapshotId.equals(r.latestSnapshotId())
                        && (r.state() == SandboxState.SUSPENDED || r.state() == SandboxState.RESUMING));
    }

    /** Whether a sandbox of this host resumes from the snapshot or was cloned from it. */
    public boolean uses(String snapshotId) {
        return entries.values().stream().map(SandboxEntry::record)
                .anyMatch(r -> snapshotId.equals(r.latestSnapshotId()) || snapshotId.equals(r.sourceSnapshotId()));
    }
}
