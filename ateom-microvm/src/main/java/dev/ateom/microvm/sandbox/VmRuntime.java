package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The processes and sockets of a sandbox while its VM exists. {@code epoch} counts boots and restores:
 * every one gets fresh socket paths under {@code runDir/e<epoch>/}. {@code network} is its network slot (null
 * without a network); every boot and restore gets a slot of its own.
 */
public record VmRuntime(
        String runDir,
        int epoch,
        long chvPid,
        String apiSocket,
        String vsockSocket,
        String consoleLog,
        String chvLog,
        List<ShareRuntime> shares,
        @JsonInclude(JsonInclude.Include.NON_NULL) NetworkRuntime network) {}
