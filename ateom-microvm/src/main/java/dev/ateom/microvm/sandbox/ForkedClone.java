package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/**
 * One clone of a fork: its sandbox when it runs, or why it does not ({@code error}, with the clone's state after
 * the failure, FAILED, or none when it was refused before it existed). A failed clone never undoes the others.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkedClone(String id, IdentitySpec identity, SandboxState state, SandboxRecord sandbox, Map<String, Long> timingsMs,
                          String error) {

    public static ForkedClone running(OperationResult result) {
        SandboxRecord sandbox = result.sandbox();
        return new ForkedClone(sandbox.id(), new IdentitySpec(sandbox.identity().name(), sandbox.identity().namespace()),
                sandbox.state(), sandbox, result.timingsMs(), null);
    }

    public static ForkedClone failed(String id, IdentitySpec identity, RuntimeException cause) {
        SandboxState state = cause instanceof SandboxException e ? e.state() : null;
        String sandboxId = cause instanceof SandboxException e && e.sandboxId() != null ? e.sandboxId() : id;
        return new ForkedClone(sandboxId, identity, state, null, null, cause.getMessage());
    }
}
