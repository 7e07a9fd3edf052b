package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.Daemon;
import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfigLoader;
import dev.ateom.microvm.jail.LeftoverCgroups;
import dev.ateom.microvm.vm.VsockGuestProbe;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A daemon on a random port with its own state and run dirs, the CHV stand-in ({@code none} backend) as its
 * cloud-hypervisor and the setup script's real virtiofsd; {@link DaemonApi} speaks to it. A class with one daemon for all its
 * tests uses {@link DaemonExtension} instead.
 */
final class DaemonHarness extends DaemonApi implements AutoCloseable {
    final Path root;
    final Daemon daemon;
    final String token;
    private final boolean childrenDieWithDaemon;

    DaemonHarness(Path root, Map<ConfigOption, String> extra) throws IOException {
        this(root, extra, new VsockGuestProbe());
    }

    /** A harness whose daemon reaches the guests' probes through {@code probe} (a fake, for the none backend's guests). */
    DaemonHarness(Path root, Map<ConfigOption, String> extra, GuestProbe probe) throws IOException {
        this.root = root;
        Map<ConfigOption, String> flags = new EnumMap<>(ConfigOption.class);
        flags.put(ConfigOption.PORT, "0");
        flags.put(ConfigOption.STATE_DIR, root.resolve("state").toString());
        flags.put(ConfigOption.RUN_DIR, root.resolve("run").toString());
        flags.put(ConfigOption.CLOUD_HYPERVISOR, TestTools.standIn().toString());
        flags.put(ConfigOption.VIRTIOFSD, TestTools.virtiofsd().toString());
        flags.put(ConfigOption.CONFIG, Files.writeString(root.resolve("empty.yaml"), "").toString());
        flags.put(ConfigOption.IMAGE_ROOTS, Files.createDirectories(imageDir(root)).toString());
        flags.put(ConfigOption.HOST_DIRECTORY_ROOTS, Files.createDirectories(hostDirectoryRoot(root)).toString());
        flags.putAll(extra);
        childrenDieWithDaemon = !"false".equals(flags.get(ConfigOption.CHILDREN_DIE_WITH_DAEMON));
        daemon = Daemon.start(new DaemonConfigLoader(flags, Map.of()).load(), probe);
        token = Files.readString(root.resolve("state/api-token")).strip();
    }

    /** The allowed image root of a harness on {@code root}: {@link #spec}'s kernel and rootfs are in it. */
    static Path imageDir(Path root) { return root.resolve("image"); }

    /** The allowed root of hostDirectory sources of a harness on {@code root}. */
    static Path hostDirectoryRoot(Path root) { return root.resolve("host"); }

    @Override
    Path root() { return root; }

    @Override
    int port() { return daemon.port(); }

    @Override
    String token() { return token; }

    /**
     * Stops the daemon; then no cgroup of its state dir may be left, unless its VMMs outlive it (kept for the next daemon
     * on this root to adopt). What is left is removed either way, so later tests start clean.
     */
    @Override
    public void close() {
        daemon.close();
        if (!childrenDieWithDaemon) return;
        Path stateDir = root.resolve("state");
        List<Path> left = LeftoverCgroups.of(stateDir);
        LeftoverCgroups.remove(stateDir);
        assertThat(left).as("cgroups of %s left after its daemon's stop", root).isEmpty();
    }
}
