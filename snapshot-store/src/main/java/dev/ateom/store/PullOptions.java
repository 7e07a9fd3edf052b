package dev.ateom.store;

import java.util.Optional;

/**
 * @param hostChvVersion          this host's CHV version, compared with the snapshot's (empty: not compared)
 * @param allowCpuMismatch        pull even if the CPU differs (the restore may then fail in CHV)
 * @param allowChvVersionMismatch pull even if the CHV version differs
 */
public record PullOptions(Optional<String> hostChvVersion, boolean allowCpuMismatch, boolean allowChvVersionMismatch) {
    public static PullOptions forHost(String chvVersion) {
        return new PullOptions(Optional.of(chvVersion), false, false);
    }

    public PullOptions allowingCpuMismatch() {
        return new PullOptions(hostChvVersion, true, allowChvVersionMismatch);
    }

    public PullOptions allowingChvVersionMismatch() {
        return new PullOptions(hostChvVersion, allowCpuMismatch, true);
    }

    boolean allows(HostMismatch mismatch) {
        return mismatch.isCpu() ? allowCpuMismatch : allowChvVersionMismatch;
    }
}
