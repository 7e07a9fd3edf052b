package dev.ateom.microvm;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.host.ChvVersion;
import dev.ateom.microvm.host.HypervisorFacts;
import dev.ateom.microvm.host.HypervisorVersionProbe;
import dev.ateom.microvm.host.SupportedHypervisors;
import dev.ateom.virtiofsd.VirtiofsdBinary;
import dev.ateom.virtiofsd.VirtiofsdException;
import dev.ateom.virtiofsd.VirtiofsdLauncher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The host binaries a sandbox needs. A missing or unsupported one does not stop the daemon (it can still list,
 * inspect and delete); operations that need it answer 503 with {@link #problems()}.
 *
 * <p>The hypervisor is found at once (a look at the file system); its version ({@code --version}, one process) and
 * virtiofsd ({@code --version}, {@code --help}) are probed by {@link #checkInBackground} on threads of their own, so
 * the API answers without waiting for them: every method that needs an answer waits for its probe, so the first
 * create, resume or clone (or a recovery that finds sandboxes) waits at most for their end, and a missing, unusable or
 * unsupported tool is logged as a warning and refused, just not before the API's first answer.
 */
public final class HostTools implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HostTools.class.getName());

    private final HypervisorCheck hypervisor;
    private final CompletableFuture<HypervisorVersionCheck> hypervisorVersion;
    private final CompletableFuture<VirtiofsdCheck> virtiofsd;

    /** The hypervisor's answer to {@code --version}, and why it rules the binary out (null when it does not). */
    private record HypervisorVersionCheck(Optional<ChvVersion> version, String problem) {}

    /** virtiofsd's probe: the binary and its one launcher, or why it cannot be used. */
    private record VirtiofsdCheck(Optional<VirtiofsdBinary> binary, String problem, VirtiofsdLauncher launcher) {}

    private HostTools(HypervisorCheck hypervisor, CompletableFuture<HypervisorVersionCheck> hypervisorVersion,
                      CompletableFuture<VirtiofsdCheck> virtiofsd) {
        this.hypervisor = hypervisor;
        this.hypervisorVersion = hypervisorVersion;
        this.virtiofsd = virtiofsd;
    }

    /** The hypervisor found now, its version and virtiofsd probed on threads of their own; the outcome is logged when known. */
    public static HostTools checkInBackground(DaemonConfig config) {
        HypervisorCheck hypervisor = HypervisorCheck.of(config.cloudHypervisor());
        HostTools tools = new HostTools(hypervisor, inBackground("cloud-hypervisor-probe", () -> probeVersion(hypervisor)),
                inBackground("virtiofsd-probe", () -> probe(config)));
        CompletableFuture.allOf(tools.hypervisorVersion, tools.virtiofsd).whenComplete((done, failure) -> {
            if (failure != null) {
                LOG.log(WARNING, "a host tool could not be probed: " + failure);
            } else {
                tools.log();
            }
        });
        return tools;
    }

    private static <T> CompletableFuture<T> inBackground(String name, Supplier<T> probe) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().name(name).daemon(true).start(() -> {
            try {
                result.complete(probe.get());
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private static HypervisorVersionCheck probeVersion(HypervisorCheck hypervisor) {
        if (hypervisor.resolved().isEmpty()) return new HypervisorVersionCheck(Optional.empty(), null); // its problem: not found
        HypervisorVersionProbe.Answer answer = HypervisorVersionProbe.ask(hypervisor.resolved().get());
        return new HypervisorVersionCheck(answer.version(), SupportedHypervisors.problem(hypervisor.resolved().get(), answer,
                HypervisorCheck.HOW_TO_POINT).orElse(null));
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

    /** What the checks found: a warning per problem, the binaries used and the hypervisor's version. */
    public void log() {
        problems().forEach(problem -> LOG.log(WARNING, problem));
        hypervisor.resolved().ifPresent(chv -> hypervisorVersion().ifPresent(version -> LOG.log(INFO, "cloud-hypervisor v" + version
                + ": " + chv + " (supported: " + SupportedHypervisors.range() + ")")));
        virtiofsd().ifPresent(v -> LOG.log(INFO, "virtiofsd " + v.version() + ": " + v.path()));
    }

    public HypervisorCheck hypervisor() { return hypervisor; }

    /** The hypervisor's version once its probe ended; empty when there is no binary or it did not say. */
    public Optional<ChvVersion> hypervisorVersion() { return join(hypervisorVersion).version(); }

    /** The hypervisor as {@code GET /v1/host} shows it, once its version probe ended. */
    public HypervisorFacts hypervisorFacts() {
        HypervisorVersionCheck check = join(hypervisorVersion);
        String problem = hypervisor.available() ? check.problem() : hypervisor.problem();
        return new HypervisorFacts(hypervisor.resolved().map(Path::toString).orElse(null), check.version().map(ChvVersion::toString).orElse(null),
                problem == null, SupportedHypervisors.range(), problem);
    }

    /** The probed virtiofsd, once the probe ended. */
    public Optional<VirtiofsdBinary> virtiofsd() { return join(virtiofsd).binary(); }

    public boolean ready() { return problems().isEmpty(); }

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!hypervisor.available()) problems.add(hypervisor.problem());
        String version = join(hypervisorVersion).problem();
        if (version != null) problems.add(version);
        VirtiofsdCheck check = join(virtiofsd);
        if (check.binary().isEmpty()) problems.add(check.problem());
        return problems;
    }

    /** The one launcher of the probed virtiofsd, or null when it is missing (then no share was ever started). */
    public VirtiofsdLauncher virtiofsdLauncher() { return join(virtiofsd).launcher(); }

    private static <T> T join(CompletableFuture<T> probe) {
        try {
            return probe.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            if (e.getCause() instanceof Error cause) throw cause;
            throw e;
        }
    }

    /**
     * Runs {@code action} once the probes ended (at once if they have), on a probe's thread. (Named for virtiofsd's,
     * the longer one; the hypervisor's version is probed beside it.)
     */
    public void afterVirtiofsdProbe(Runnable action) {
        CompletableFuture.allOf(hypervisorVersion, virtiofsd).whenComplete((done, failure) -> action.run());
    }

    /** Stops the launcher's log rotation, if the probe made one; when a probe still runs, as it ends. */
    @Override
    public void close() {
        virtiofsd.thenAccept(check -> {
            if (check.launcher() != null) check.launcher().close();
        });
    }
}
