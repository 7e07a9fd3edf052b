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
 * {@code e2bListen} is empty when the E2B listener is off; {@code e2bKeysFile} null when none is given.
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
        Duration virtiofsdAheadRunning,
        int cloneAhead,
        Duration idleMinimum,
        Duration operationRetention,
        String e2bListen,
        Path e2bKeysFile,
        JailConfig jail) {

    public DaemonConfig {
        imageRoots = List.copyOf(imageRoots);
        hostDirectoryRoots = List.copyOf(hostDirectoryRoots);
    }

    public Path sandboxesDir() { return stateDir.resolve("sandboxes"); }

    public Path snapshotsDir() { return stateDir.resolve("snapshots"); }
}
