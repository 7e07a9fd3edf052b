package dev.ateom.microvm;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.virtiofsd.VirtiofsdBinary;
import dev.ateom.virtiofsd.VirtiofsdException;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The host binaries a sandbox needs. A missing one does not stop the daemon (it can still list, inspect and
 * delete); operations that need it answer 503 with {@link #problems()}.
 *
 * <p>The hypervisor is found at once (a look at the file system). virtiofsd is probed by running it twice
 * ({@code --version}, {@code --help}), which {@link #checkInBackground} does on a thread of its own, so the API
 * answers without waiting for it: every method that needs virtiofsd's answer waits for the probe, so the first
 * create, resume or clone (or a recovery that finds sandboxes) waits at most for its end, and a missing or unusable
 * virtiofsd is logged as a warning and refused as before, just not before the API's first answer.
 */
public final class HostTools implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HostTools.class.getName());

    private final HypervisorCheck hypervisor;
    private final CompletableFuture<VirtiofsdCheck> virtiofsd;

    /** virtiofsd's probe: the binary and its one launcher, or why it cannot be used. */
    private record VirtiofsdCheck(Optional<VirtiofsdBinary> binary, String problem, VirtiofsdLauncher launcher) {}

    private HostTools(HypervisorCheck hypervisor, CompletableFuture<VirtiofsdCheck> virtiofsd) {
        this.hypervisor = hypervisor;
        this.virtiofsd = virtiofsd;
    }

    /** The hypervisor checked now, virtiofsd probed on a thread of its own; its outcome is logged when known. */
    public static HostTools checkInBackground(DaemonConfig config) {
        HypervisorCheck hypervisor = HypervisorCheck.of(config.cloudHypervisor());
        CompletableFuture<VirtiofsdCheck> virtiofsd = new CompletableFuture<>();
        HostTools tools = new HostTools(hypervisor, virtiofsd);
        Thread.ofPlatform().name("virtiofsd-probe").daemon(true).start(() -> {
            try {
                virtiofsd.complete(probe(config));
            } catch (RuntimeException | Error e) {
                virtiofsd.completeExceptionally(e);
                LOG.log(WARNING, "virtiofsd at '" + config.virtiofsd() + "' could not be probed: " + e);
                return;
            }
            tools.log();
        });
        return tools;
    }

    private static VirtiofsdCheck probe(DaemonConfig config) {
        try {
            VirtiofsdBinary binary = VirtiofsdBinary.probe(config.virtiofsd());
            return new VirtiofsdCheck(Optional.of(binary), null, new VirtiofsdLauncher(binary, VirtiofsdLauncher.Settings.DEFAULT));
        } catch (VirtiofsdException e) {
            return new VirtiofsdCheck(Optional.empty(), "virtiofsd at '" + config.virtiofsd() + "' cannot be used: "
                    + e.getMessage() + ". Point the daemon at virtiofsd >= 1.13 with " + ConfigOption.VIRTIOFSD.flag() + " <path> or "
                    + ConfigOption.VIRTIOFSD.environmentVariable() + "=<path> (scripts/setup.sh installs one in .tools/virtiofsd/bin).",
                    null);
        }
    }

    /** What the checks found: a warning per problem, the binaries used. */
    public void log() {
        problems().forEach(problem -> LOG.log(WARNING, problem));
        hypervisor.resolved().ifPresent(chv -> LOG.log(INFO, "cloud-hypervisor: " + chv));
        virtiofsd().ifPresent(v -> LOG.log(INFO, "virtiofsd " + v.version() + ": " + v.path()));
    }

    public HypervisorCheck hypervisor() { return hypervisor; }

    /** The probed virtiofsd, once the probe ended. */
    public Optional<VirtiofsdBinary> virtiofsd() { return virtiofsdCheck().binary(); }

    public boolean ready() { return hypervisor.available() && virtiofsd().isPresent(); }

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!hypervisor.available()) problems.add(hypervisor.problem());
        VirtiofsdCheck check = virtiofsdCheck();
        if (check.binary().isEmpty()) problems.add(check.problem());
        return problems;
    }

    /** The one launcher of the probed virtiofsd, or null when it is missing (then no share was ever started). */
    public VirtiofsdLauncher virtiofsdLauncher() { return virtiofsdCheck().launcher(); }

    private VirtiofsdCheck virtiofsdCheck() {
        try {
            return virtiofsd.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            if (e.getCause() instanceof Error cause) throw cause;
            throw e;
        }
    }

    /** Runs {@code action} once virtiofsd's probe ended (at once if it has), on the probe's thread. */
    public void afterVirtiofsdProbe(Runnable action) {
        virtiofsd.whenComplete((check, failure) -> action.run());
    }

    /** Stops the launcher's log rotation, if the probe made one; when a probe still runs, as it ends. */
    @Override
    public void close() {
        virtiofsd.thenAccept(check -> {
            if (check.launcher() != null) check.launcher().close();
        });
    }
}
