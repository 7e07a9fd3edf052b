package dev.ateom.chv.vsock;

import dev.ateom.fixtures.guest.GuestImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Host side of one test sandbox: the durable dir, the system-info dir with the identity file in the kubelet-like
 * {@code ..data} layout ({@code identity/name -> ..data/name}), and the three virtiofsd, started per generation
 * on fresh socket paths (virtiofsd exits when its front-end goes, so each boot or restore needs new ones).
 */
final class SandboxDirs implements AutoCloseable {
    final Path root;
    final Path durable;
    final Path systemInfo;
    private final GuestImage image;
    private final List<ShareDaemon> daemons = new ArrayList<>();

    SandboxDirs(Path root, GuestImage image, String identity) throws IOException {
        this.root = root;
        this.image = image;
        this.durable = Files.createDirectories(root.resolve("durable"));
        this.systemInfo = Files.createDirectories(root.resolve("si"));
        Files.createDirectories(systemInfo.resolve("identity/..data"));
        Files.writeString(systemInfo.resolve("identity/..data/name"), identity);
        Files.createSymbolicLink(systemInfo.resolve("identity/name"), Path.of("..data/name"));
    }

    /** Replaces the identity the way a writer does while the VM is saved: new file, renamed over the old. */
    void replaceIdentity(String identity) throws IOException {
        Path tmp = systemInfo.resolve("identity/..data/.name.tmp");
        Files.writeString(tmp, identity, StandardCharsets.UTF_8);
        Files.move(tmp, systemInfo.resolve("identity/..data/name"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Starts virtiofsd for ateRootfs, ateDurable, ateSystemInfo on sockets {@code <tag>-<generation>.sock}. */
    List<ShareDaemon> startShares(int generation) throws IOException, InterruptedException {
        var started = List.of(
                ShareDaemon.start(ShareDaemon.Kind.ROOTFS, "ateRootfs", image.rootfs(), socket("ateRootfs", generation)),
                ShareDaemon.start(ShareDaemon.Kind.DURABLE, "ateDurable", durable, socket("ateDurable", generation)),
                ShareDaemon.start(ShareDaemon.Kind.SYSTEM_INFO, "ateSystemInfo", systemInfo, socket("ateSystemInfo", generation)));
        daemons.addAll(started);
        return started;
    }

    Path socket(String tag, int generation) {
        return root.resolve(tag + "-" + generation + ".sock");
    }

    @Override
    public void close() {
        daemons.forEach(ShareDaemon::close);
    }
}
