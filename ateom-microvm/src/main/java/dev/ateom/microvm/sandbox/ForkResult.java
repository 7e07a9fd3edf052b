package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;
import java.util.Map;

/**
 * What a fork answers: the snapshot every clone was restored from (a fresh checkpoint when the source ran, its
 * latest snapshot when it was suspended), every clone with its outcome, and timings ({@code checkpoint},
 * {@code clones} for all restores together, {@code total}; {@code checkpointTimingsMs} holds the checkpoint's
 * steps and its pause window).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkResult(String sourceSandboxId, String snapshotId, int succeeded, int failed, List<ForkedClone> clones,
                         Map<String, Long> timingsMs, Map<String, Long> checkpointTimingsMs) {}
