package dev.ateom.microvm.sandbox.operation;

import dev.ateom.chv.ChvProcess;
import dev.ateom.microvm.sandbox.VmRuntime;
import dev.ateom.microvm.vm.SandboxLayout;
import dev.ateom.process.ProcessKill;
import dev.ateom.process.ProcessTree;
import dev.ateom.virtiofsd.ShareKind;
import dev.ateom.virtiofsd.ShareOptions;
import dev.ateom.virtiofsd.ShareSpec;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Kills what a sandbox's record says may still run after a crash: its virtiofsd (found by socket path
 * in /proc) and its cloud-hypervisor (by pid, only if that pid's command line still names the sandbox's
 * API socket, so a recycled pid is never signalled).
 */
final class ProcessLeftovers {
    private static final System.Logger LOG = System.getLogger(ProcessLeftovers.class.getName());
    /** How long a leftover CHV gets between SIGTERM and SIGKILL. */
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private ProcessLeftovers() {}

    /** Kills the CHV and virtiofsd a runtime record names, if they still run; nothing when there is no record. */
    static void killRecorded(VirtiofsdLauncher virtiofsd, VmRuntime runtime) {
        if (runtime == null) return;
        killChv(runtime);
        if (virtiofsd == null) return; // no usable virtiofsd binary: none can have been started by this daemon
        killShares(virtiofsd, runtime.shares().stream().map(share -> Path.of(share.socket())).toList(), "leftover");
    }

    /** Whatever virtiofsd serves these sockets, found by one scan of /proc for all of them. */
    private static void killShares(VirtiofsdLauncher virtiofsd, List<Path> sockets, String what) {
        virtiofsd.killLeftovers(sockets).forEach((socket, killed) -> {
            if (!killed.isEmpty()) LOG.log(INFO, "killed " + what + " virtiofsd " + killed + " of " + socket);
        });
    }

    static void killChv(VmRuntime runtime) {
        if (runtime.chvPid() <= 0) return;
        Optional<ProcessHandle> handle = ProcessHandle.of(runtime.chvPid());
        if (handle.isEmpty() || !commandLineNames(runtime.chvPid(), runtime.apiSocket())) return;
        stop(handle.get(), runtime.apiSocket());
    }

    /**
     * SIGKILL at once to a recorded CHV (and what it started) that still runs, waiting until it is gone, then its
     * API socket goes (CHV removes it only on a clean exit): the teardown of an adopted VM whose state is committed
     * or discarded.
     */
    static void killChvNow(VmRuntime runtime) {
        if (runtime.chvPid() <= 0) return;
        Optional<ProcessHandle> handle = ProcessHandle.of(runtime.chvPid());
        if (handle.isPresent() && commandLineNames(runtime.chvPid(), runtime.apiSocket())) {
            ChvProcess.killTree(handle.get());
            LOG.log(INFO, "killed cloud-hypervisor pid " + runtime.chvPid() + " (" + runtime.apiSocket() + ")");
        }
        try {
            Files.deleteIfExists(Path.of(runtime.apiSocket()));
        } catch (IOException e) {
            LOG.log(WARNING, "cannot remove the API socket " + runtime.apiSocket() + ": " + e.getMessage());
        }
    }

    /**
     * Kills the CHV and virtiofsd of every epoch dir under a sandbox's run dir, found in /proc by the socket
     * paths on their command lines: the processes an operation started before it could record them.
     */
    static void killInRunDir(VirtiofsdLauncher virtiofsd, String sandboxId, Path runDir) {
        List<Path> epochs;
        try (Stream<Path> entries = Files.list(runDir)) {
            epochs = entries.filter(Files::isDirectory).toList();
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            LOG.log(WARNING, "cannot list run dir " + runDir + " for leftover processes: " + e.getMessage());
            return;
        }
        for (Path epoch : epochs) {
            String apiSocket = new SandboxLayout.EpochLayout(epoch).apiSocket().toString();
            ProcessHandle.allProcesses().filter(p -> hasArgument(p.pid(), apiSocket)).forEach(p -> stop(p, apiSocket));
            if (virtiofsd == null) continue;
            killShares(virtiofsd, Stream.of(ShareKind.values())
                    .map(kind -> ShareSpec.inRunDir(sandboxId, kind, epoch, epoch, ShareOptions.DEFAULT).socketPath()).toList(), "unrecorded");
        }
    }

    private static void stop(ProcessHandle process, String apiSocket) {
        process.destroy();
        // its exit, not its reaping: a leftover of the previous daemon is not this JVM's child, so its zombie waits for
        // whatever adopted it (PID 1, a subreaper) to reap it, and onExit() counts a zombie as alive. Where that parent
        // reaps late (~2 s on some hosts) every stop ran out the whole grace. A SIGKILL below if it did not exit.
        ProcessTree.awaitGone(process.pid(), GRACE);
        // also after a clean exit: what it started (the stand-in's QEMU) dies with it only asynchronously
        if (!ProcessKill.killTree(process, KILL_WAIT)) {
            LOG.log(WARNING, "leftover cloud-hypervisor pid " + process.pid() + " (" + apiSocket + ") survived SIGKILL");
            return;
        }
        LOG.log(INFO, "killed leftover cloud-hypervisor pid " + process.pid() + " (" + apiSocket + ")");
    }

    /** Whether one of the process's arguments is exactly {@code argument} (a mere substring could be another path). */
    private static boolean hasArgument(long pid, String argument) {
        try {
            byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return List.of(new String(cmdline, StandardCharsets.UTF_8).split("\0")).contains(argument);
        } catch (IOException e) {
            return false;
        }
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
}
