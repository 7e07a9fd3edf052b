package dev.ateom.microvm.config;

import dev.ateom.network.NetworkConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The daemon's resolved settings; see {@link ConfigOption} for each one's meaning and default. {@code network} is
 * null when networking is off. {@code imageRoots} and {@code hostDirectoryRoots} are absolute and normalized; empty
 * lists allow nothing. {@code snapshotStore} is empty unless {@code --snapshot-store} is set.
 */
public record DaemonConfig(
        String listenHost,
        int port,
        Path portFile,
        Path stateDir,
        Path runDir,
        List<Path> imageRoots,
        List<Path> hostDirectoryRoots,
        Path tokenFile,
        Path cloudHypervisor,
        Path virtiofsd,
        Path vhostDeviceVsock,
        Duration syncReconcileInterval,
        long maxRequestBytes,
        boolean childrenDieWithDaemon,
        String logLevel,
        int maxParallelRestores,
        NetworkConfig network,
        Optional<RemoteStoreConfig> snapshotStore,
        int vmmPool,
        int virtiofsdAhead,
        Duration idleMinimum,
        Duration operationRetention) {

    public DaemonConfig {
        imageRoots = List.copyOf(imageRoots);
        hostDirectoryRoots = List.copyOf(hostDirectoryRoots);
    }

    public Path sandboxesDir() { return stateDir.resolve("sandboxes"); }

    public Path snapshotsDir() { return stateDir.resolve("snapshots"); }
}
