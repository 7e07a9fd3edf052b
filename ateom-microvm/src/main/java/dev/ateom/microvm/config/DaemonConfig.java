package dev.ateom.microvm.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The daemon's resolved settings; see {@link ConfigOption} for each one's meaning and default.
 * {@code snapshotStore} is empty unless {@code --snapshot-store} is set.
 */
public record DaemonConfig(
        String listenHost,
        int port,
        Path portFile,
        Path stateDir,
        Path runDir,
        Path tokenFile,
        Path cloudHypervisor,
        Path virtiofsd,
        Path vhostDeviceVsock,
        Duration syncReconcileInterval,
        long maxRequestBytes,
        boolean childrenDieWithDaemon,
        String logLevel,
        int maxParallelRestores,
        Optional<RemoteStoreConfig> snapshotStore) {

    public Path sandboxesDir() { return stateDir.resolve("sandboxes"); }

    public Path snapshotsDir() { return stateDir.resolve("snapshots"); }
}
