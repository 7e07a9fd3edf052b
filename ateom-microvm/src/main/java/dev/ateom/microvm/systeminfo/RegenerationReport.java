package dev.ateom.microvm.systeminfo;

import java.util.List;

/**
 * What a regeneration on resume/clone could not refresh: each entry names a volume and a source
 * whose last good content was kept instead. Empty when every volume is fully up to date.
 */
public record RegenerationReport(List<String> sourceFailures) {
    public RegenerationReport {
        sourceFailures = List.copyOf(sourceFailures);
    }

    public boolean complete() {
        return sourceFailures.isEmpty();
    }
}
