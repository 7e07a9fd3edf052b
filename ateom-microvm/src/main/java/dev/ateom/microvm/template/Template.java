package dev.ateom.microvm.template;

import java.time.Instant;

/**
 * A template: a named snapshot made from a spec once the guest's agent answered, which sandboxes are cloned from.
 * {@code sandboxes} counts the sandboxes on this host cloned from it that still exist.
 */
public record Template(String name, String snapshotId, Instant createdAt, long sizeBytes, int sandboxes) {}
