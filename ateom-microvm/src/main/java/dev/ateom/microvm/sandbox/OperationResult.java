package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/** What create, clone, suspend and resume answer: the sandbox afterwards, the snapshot made (suspend) and step timings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OperationResult(SandboxRecord sandbox, String snapshotId, Map<String, Long> timingsMs) {}
