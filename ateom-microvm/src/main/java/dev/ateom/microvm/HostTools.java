package dev.ateom.microvm;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.virtiofsd.VirtiofsdBinary;
import dev.ateom.virtiofsd.VirtiofsdException;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The host binaries a sandbox needs, checked once at start. A missing one does not stop the daemon
 * (it can still list, inspect and delete); operations that need it answer 503 with {@link #problems()}.
 */
public record HostTools(HypervisorCheck hypervisor, Optional<VirtiofsdBinary> virtiofsd, String virtiofsdProblem) {

    public static HostTools check(DaemonConfig config) {
        HypervisorCheck hypervisor = HypervisorCheck.of(config.cloudHypervisor());
        try {
            return new HostTools(hypervisor, Optional.of(VirtiofsdBinary.probe(config.virtiofsd())), null);
        } catch (VirtiofsdException e) {
            return new HostTools(hypervisor, Optional.empty(), "virtiofsd at '" + config.virtiofsd() + "' cannot be used: "
                    + e.getMessage() + ". Point the daemon at virtiofsd >= 1.13 with " + ConfigOption.VIRTIOFSD.flag() + " <path> or "
                    + ConfigOption.VIRTIOFSD.environmentVariable() + "=<path> (scripts/setup.sh installs one in .tools/virtiofsd/bin).");
        }
    }

    public boolean ready() { return hypervisor.available() && virtiofsd.isPresent(); }

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!hypervisor.available()) problems.add(hypervisor.problem());
        if (virtiofsd.isEmpty()) problems.add(virtiofsdProblem);
        return problems;
    }

    /** A launcher for the probed virtiofsd, or one that refuses to start anything when it is missing. */
    public VirtiofsdLauncher virtiofsdLauncher() {
        return virtiofsd.map(binary -> new VirtiofsdLauncher(binary, VirtiofsdLauncher.Settings.DEFAULT)).orElse(null);
    }
}
