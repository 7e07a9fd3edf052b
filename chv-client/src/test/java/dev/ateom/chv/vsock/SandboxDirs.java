package dev.ateom.chv.vsock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ateom.chv.ConsoleConfig;
import dev.ateom.chv.CpusConfig;
import dev.ateom.chv.FsConfig;
import dev.ateom.chv.MemoryConfig;
import dev.ateom.chv.PayloadConfig;
import dev.ateom.chv.VmConfig;
import dev.ateom.chv.VsockConfig;
import dev.ateom.fixtures.chv.qemu.QemuMachine;
import dev.ateom.fixtures.guest.GuestCmdline;
import dev.ateom.fixtures.guest.GuestImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Host side of one test sandbox: the durable dir, the system-info dir with the identity file in the kubelet-like
 * {@code ..data} layout ({@code identity/name -> ..data/name}), and the three virtiofsd, started per generation
 * on fresh socket paths (virtiofsd exits when its front-end goes, so each boot or restore needs new ones).
 */
final class SandboxDirs implements AutoCloseable {
    static final List<String> TAGS = List.of("ateRootfs", "ateDurable", "ateSystemInfo");
    private static final ObjectMapper JSON = new ObjectMapper();

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

    /** The VM of generation {@code generation}: 1 vCPU, 256 MiB shared, the three shares, vsock, console to a file. */
    VmConfig vmConfig(int generation, Path vsock, String extraCmdline) {
        List<FsConfig> fs = TAGS.stream().map(tag -> FsConfig.of(tag, socket(tag, generation).toString())).toList();
        String cmdline = GuestCmdline.defaults().render() + (extraCmdline.isEmpty() ? "" : " " + extraCmdline);
        return new VmConfig(CpusConfig.of(1), MemoryConfig.shared(256L << 20),
                PayloadConfig.kernel(image.vmlinux().toString(), image.initramfs().toString(), cmdline),
                fs, VsockConfig.of(3, vsock.toString()), ConsoleConfig.toFile(root.resolve("serial.log").toString()),
                ConsoleConfig.off(), null, null, null);
    }

    /** A QEMU of this sandbox driven directly, with real virtio-vsock on vsock's back-end: 1 vCPU, 256 MiB, console to serial.log. */
    QemuMachine vhostVsockMachine(List<ShareDaemon> shares, VsockDaemon vsock) {
        return new QemuMachine(image.vmlinux(), image.initramfs(), GuestCmdline.defaults().render(), 256L << 20, 1,
                shares.stream().map(s -> new QemuMachine.FsDevice(s.tag(), s.socket())).toList(),
                new QemuMachine.VhostUserVsock(vsock.backendSocket()), root.resolve("serial.log"), root.resolve("qmp.sock"), false,
                List.of(), null);
    }

    /** Points a snapshot's {@code config.json} at generation {@code generation}'s sockets, except the tags in {@code stale}. */
    void rewrite(Path configJson, int generation, Path vsock, Map<String, Integer> stale) throws IOException {
        ObjectNode config = (ObjectNode) JSON.readTree(configJson.toFile());
        for (JsonNode fs : config.path("fs")) {
            String tag = fs.path("tag").asText();
            ((ObjectNode) fs).put("socket", socket(tag, stale.getOrDefault(tag, generation)).toString());
        }
        ((ObjectNode) config.path("vsock")).put("socket", vsock.toString());
        Files.write(configJson, JSON.writeValueAsBytes(config));
    }

    @Override
    public void close() {
        daemons.forEach(ShareDaemon::close);
    }
}
