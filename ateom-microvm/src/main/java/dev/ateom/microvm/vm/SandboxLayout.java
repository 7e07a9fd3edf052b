package dev.ateom.microvm.vm;

import dev.ateom.microvm.config.DaemonConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a sandbox lives on the host (docs/DESIGN.md, host layout):
 * {@code <state>/sandboxes/<id>/{sandbox.json,durable/,system-info/}} and {@code <run>/<short-id>/}.
 * The run dir name is the id when short, else a prefix plus a hash, to keep socket paths under 107 bytes.
 */
public record SandboxLayout(String sandboxId, Path sandboxDir, Path durableDir, Path systemInfoDir, Path runDir) {
    private static final int MAX_RUN_NAME = 20;

    public static SandboxLayout of(DaemonConfig config, String sandboxId) {
        Path sandboxDir = config.sandboxesDir().resolve(sandboxId);
        return new SandboxLayout(sandboxId, sandboxDir, sandboxDir.resolve("durable"), sandboxDir.resolve("system-info"),
                config.runDir().resolve(runDirName(sandboxId)));
    }

    /** The run dir's name: the sandbox's short name, which its jails' cgroups and roots are named after. */
    public String runName() { return runDir.getFileName().toString(); }

    /** Paths for the {@code epoch}-th boot or restore: every one gets fresh sockets, as CHV and virtiofsd need. */
    public EpochLayout epoch(int epoch) {
        return new EpochLayout(runDir.resolve("e" + epoch));
    }

    /**
     * Per-restore CHV source dirs live on the state dir's filesystem (hard links to the snapshot's files
     * cannot cross into a tmpfs run dir): {@code <sandbox>/restore/e<epoch>}.
     */
    public Path restoreDir(int epoch) { return restoreRoot().resolve("e" + epoch); }

    public Path restoreRoot() { return sandboxDir.resolve("restore"); }

    /**
     * The outbox of a jailed {@code epoch}-th VMM, the one dir outside its run dir it writes (snapshots), on the state
     * dir's filesystem so they move out by a rename: {@code <sandbox>/vmm-out-e<epoch>}, an epoch's own, so a resume's
     * new VMM gets its own while the old one's teardown removes the old (no parent dir shared by the two either).
     */
    public Path vmmOutbox(int epoch) { return sandboxDir.resolve("vmm-out-e" + epoch); }

    static String runDirName(String sandboxId) {
        if (sandboxId.length() <= MAX_RUN_NAME) return sandboxId;
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(sandboxId.getBytes(StandardCharsets.UTF_8));
            return sandboxId.substring(0, 11) + "-" + HexFormat.of().formatHex(hash, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One boot's or restore's sockets and logs. */
    public record EpochLayout(Path dir) {
        public Path apiSocket() { return dir.resolve("api.sock"); }

        public Path vsockSocket() { return dir.resolve("vsock.sock"); }

        public Path consoleLog() { return dir.resolve("console.log"); }

        public Path chvLog() { return dir.resolve("chv.log"); }

        public Path chvOutput() { return dir.resolve("chv.out"); }
    }
}
