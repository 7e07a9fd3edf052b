package dev.ateom.microvm.operations;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.sandbox.Operation;

import java.time.Instant;

/**
 * An asynchronous operation as {@code GET /v1/operations/{id}} shows it. {@code step} is the step it is in (the names
 * of the synchronous answer's {@code timingsMs}); {@code bytesDone} and {@code bytesTotal} are set on the byte-heavy
 * steps ({@code bytesTotal} only where known); a finished one has {@code result} (the body the synchronous call answers)
 * or {@code problem} (the problem document it answers), and {@code status}, the HTTP status that call would have had.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OperationStatus(String id, Operation operation, String sandboxId, OperationState state, String step, Long bytesDone,
                              Long bytesTotal, Instant startedAt, Instant finishedAt, Integer status, Object result, Problem problem) {}
