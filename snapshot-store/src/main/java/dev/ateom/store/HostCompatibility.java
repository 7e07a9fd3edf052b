package dev.ateom.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Compares a snapshot's {@link HostRequirements} with this host. Vendor and family/model must be equal; every
 * CPU flag of the snapshot's host must be here too (extra flags are fine: CHV checks that the restore host
 * offers what the guest saw); the CHV version must be equal when this host's is known.
 */
public final class HostCompatibility {
    private HostCompatibility() {
    }

    public static List<HostMismatch> check(HostRequirements snapshot, CpuProfile host, Optional<String> hostChvVersion) {
        List<HostMismatch> mismatches = new ArrayList<>();
        if (hostChvVersion.isPresent() && !hostChvVersion.get().equals(snapshot.chvVersion())) {
            mismatches.add(new HostMismatch(HostMismatch.CHV_VERSION, snapshot.chvVersion(), hostChvVersion.get()));
        }
        CpuProfile taken = snapshot.cpu();
        if (!taken.vendor().equals(host.vendor())) {
            mismatches.add(new HostMismatch(HostMismatch.CPU_VENDOR, taken.vendor(), host.vendor()));
        }
        String takenModel = "family " + taken.family() + " model " + taken.model();
        String hostModel = "family " + host.family() + " model " + host.model();
        if (!takenModel.equals(hostModel)) {
            mismatches.add(new HostMismatch(HostMismatch.CPU_MODEL, takenModel + " (" + taken.modelName() + ")",
                    hostModel + " (" + host.modelName() + ")"));
        }
        TreeSet<String> missing = new TreeSet<>(taken.flags());
        missing.removeAll(host.flags());
        if (!missing.isEmpty()) {
            mismatches.add(new HostMismatch(HostMismatch.CPU_FLAGS, String.join(" ", taken.flags()), String.join(" ", missing)));
        }
        return List.copyOf(mismatches);
    }
}
