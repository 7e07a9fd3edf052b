package dev.ateom.virtiofsd;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One share of one sandbox: what to serve, where to listen, where to log.
 *
 * @param sandboxId  used in log messages and diagnostics only
 * @param kind       decides the virtiofsd policy (see {@link ShareKind})
 * @param sharedDir  host directory served to the guest; must exist
 * @param socketPath vhost-user socket virtiofsd listens on; at most {@value #MAX_SOCKET_PATH_BYTES} bytes
 * @param logFile    virtiofsd's stdout and stderr are appended here (rotated by size)
 */
public record ShareSpec(String sandboxId, ShareKind kind, Path sharedDir, Path socketPath, Path logFile,
                        ShareOptions options) {

    /** sun_path is 108 bytes including the terminating NUL. */
    public static final int MAX_SOCKET_PATH_BYTES = 107;

    public ShareSpec {
        Objects.requireNonNull(sandboxId, "sandboxId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sharedDir, "sharedDir");
        Objects.requireNonNull(socketPath, "socketPath");
        Objects.requireNonNull(logFile, "logFile");
        Objects.requireNonNull(options, "options");
        sharedDir = sharedDir.toAbsolutePath().normalize();
        socketPath = socketPath.toAbsolutePath().normalize();
        logFile = logFile.toAbsolutePath().normalize();
    }

    /** The usual layout: {@code <runDir>/<short>.sock} and {@code <runDir>/<short>.log}. */
    public static ShareSpec inRunDir(String sandboxId, ShareKind kind, Path sharedDir, Path runDir, ShareOptions options) {
        return new ShareSpec(sandboxId, kind, sharedDir,
                runDir.resolve(kind.shortName() + ".sock"), runDir.resolve(kind.shortName() + ".log"), options);
    }

    public ShareSpec withSocketPath(Path newSocketPath) {
        return new ShareSpec(sandboxId, kind, sharedDir, newSocketPath, logFile, options);
    }

    public ShareSpec withOptions(ShareOptions newOptions) {
        return new ShareSpec(sandboxId, kind, sharedDir, socketPath, logFile, newOptions);
    }

    /** The file virtiofsd writes its pid to (and keeps locked) beside the socket. */
    public Path pidFile() {
        return pidFileOf(socketPath);
    }

    static Path pidFileOf(Path socketPath) {
        return socketPath.resolveSibling(socketPath.getFileName() + ".pid");
    }

    /** "sandbox sb-1 share ateDurable": how logs and errors name this share. */
    public String describe() {
        return "sandbox " + sandboxId + " share " + kind.tag();
    }

    /** Checks everything that can be checked before a process is started; throws naming the field and the reason. */
    public void validate() {
        int socketBytes = socketPath.toString().getBytes(StandardCharsets.UTF_8).length;
        if (socketBytes > MAX_SOCKET_PATH_BYTES) {
            throw new VirtiofsdException(describe() + ": socket path " + socketPath + " is " + socketBytes
                    + " bytes, longer than the " + MAX_SOCKET_PATH_BYTES + " bytes a Unix socket path may have");
        }
        if (!Files.isDirectory(socketPath.getParent())) {
            throw new VirtiofsdException(describe() + ": directory of socket path " + socketPath + " does not exist");
        }
        if (Files.exists(socketPath, LinkOption.NOFOLLOW_LINKS) && Files.isDirectory(socketPath, LinkOption.NOFOLLOW_LINKS)) {
            throw new VirtiofsdException(describe() + ": socket path " + socketPath + " is a directory");
        }
        if (!Files.exists(sharedDir)) {
            throw new VirtiofsdException(describe() + ": shared dir " + sharedDir + " does not exist");
        }
        if (!Files.isDirectory(sharedDir)) {
            throw new VirtiofsdException(describe() + ": shared dir " + sharedDir + " is not a directory");
        }
        if (!Files.isDirectory(logFile.getParent())) {
            throw new VirtiofsdException(describe() + ": directory of log file " + logFile + " does not exist");
        }
    }
}
