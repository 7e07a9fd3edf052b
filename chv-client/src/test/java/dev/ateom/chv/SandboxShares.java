package dev.ateom.chv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The three real virtiofsd of a sandbox (rootfs, durable, system-info) and the VmConfig that uses them. */
final class SandboxShares implements AutoCloseable {
    static final List<String> TAGS = List.of("ateRootfs", "ateDurable", "ateSystemInfo");

    final Path dir;
    final List<VirtiofsdShare> shares;

    private SandboxShares(Path dir, List<VirtiofsdShare> shares) {
        this.dir = dir;
        this.shares = shares;
    }

    /** Fresh daemons on fresh sockets named {@code <generation>-<tag>.sock}. */
    static SandboxShares start(Path dir, String generation) throws IOException, InterruptedException {
        List<VirtiofsdShare> shares = new ArrayList<>();
        try {
            for (String tag : TAGS) {
                shares.add(VirtiofsdShare.start(dir, generation + "-" + tag));
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            shares.forEach(VirtiofsdShare::close);
            throw e;
        }
        return new SandboxShares(dir, shares);
    }

    VmConfig config(String generation) {
        List<FsConfig> fs = new ArrayList<>();
        for (int i = 0; i < TAGS.size(); i++) {
            fs.add(FsConfig.of(TAGS.get(i), shares.get(i).socket.toString()));
        }
        return new VmConfig(CpusConfig.of(1), MemoryConfig.shared(256L << 20),
                PayloadConfig.kernel(HostTools.kernel().toString(), null, "console=ttyS0"), fs,
                VsockConfig.of(3, dir.resolve(generation + "-vsock.sock").toString()),
                ConsoleConfig.toFile(dir.resolve(generation + "-serial.log").toString()), ConsoleConfig.off(), RngConfig.urandom(), null, null);
    }

    String configJson(String generation) {
        return new String(ChvClient.body(config(generation)), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        shares.forEach(VirtiofsdShare::close);
    }
}
