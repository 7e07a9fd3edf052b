package dev.ateom.microvm.sandbox;

import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Kills what a sandbox's record says may still run after a crash: its virtiofsd (found by socket path
 * in /proc) and its cloud-hypervisor (by pid, only if that pid's command line still names the sandbox's
 * API socket, so a recycled pid is never signalled).
 */
final class ProcessLeftovers {
    private static final System.Logger LOG = System.getLogger(ProcessLeftovers.class.getName());

    private ProcessLeftovers() {}

    static void kill(VirtiofsdLauncher virtiofsd, VmRuntime runtime) {
        killChv(runtime);
        if (virtiofsd == null) return; // no usable virtiofsd binary: none can have been started by this daemon
        for (ShareRuntime share : runtime.shares()) {
            var killed = virtiofsd.killLeftovers(Path.of(share.socket()));
            if (!killed.isEmpty()) LOG.log(System.Logger.Level.INFO, "killed leftover virtiofsd " + killed + " of " + share.socket());
        }
    }

    static void killChv(VmRuntime runtime) {
        if (runtime.chvPid() <= 0) return;
        Optional<ProcessHandle> handle = ProcessHandle.of(runtime.chvPid());
        if (handle.isEmpty() || !commandLineNames(runtime.chvPid(), runtime.apiSocket())) return;
        ProcessHandle process = handle.get();
        process.destroy();
        try {
            process.onExit().get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
        }
        LOG.log(System.Logger.Level.INFO, "killed leftover cloud-hypervisor pid " + runtime.chvPid() + " (" + runtime.apiSocket() + ")");
    }

    static boolean isChvAlive(VmRuntime runtime) {
        return runtime.chvPid() > 0 && ProcessHandle.of(runtime.chvPid()).map(ProcessHandle::isAlive).orElse(false)
                && commandLineNames(runtime.chvPid(), runtime.apiSocket());
    }

    private static boolean commandLineNames(long pid, String apiSocket) {
        try {
            String cmdline = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
            return cmdline.contains(apiSocket);
        } catch (IOException e) {
            return false;
        }
    }

    static Duration grace() { return Duration.ofSeconds(2); }
}
