package dev.ateom.microvm.sandbox;

import java.util.List;

/**
 * The processes and sockets of a sandbox while its VM exists. {@code epoch} counts boots and restores:
 * every one gets fresh socket paths under {@code runDir/e<epoch>/}.
 */
public record VmRuntime(
        String runDir,
        int epoch,
        long chvPid,
        String apiSocket,
        String vsockSocket,
        String consoleLog,
        String chvLog,
        List<ShareRuntime> shares) {}
