package dev.ateom.microvm.config;

import dev.ateom.network.NetworkConfig;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The daemon's resolved settings; see {@link ConfigOption} for each one's meaning and default. {@code network} is
 * null when networking is off.
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
        NetworkConfig network) {

    public Path sandboxesDir() { return stateDir.resolve("sandboxes"); }

    public Path snapshotsDir() { return stateDir.resolve("snapshots"); }
}
