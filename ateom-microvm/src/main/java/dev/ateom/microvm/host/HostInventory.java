package dev.ateom.microvm.host;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The host's report, probed once at start on a thread of its own (the API answers meanwhile), its warnings logged
 * one line each as soon as the facts and the hypervisor's version are known.
 */
public final class HostInventory {
    private static final System.Logger LOG = System.getLogger(HostInventory.class.getName());

    private final CompletableFuture<HostReport> report;

    private HostInventory(CompletableFuture<HostReport> report) {
        this.report = report;
    }

    /**
     * @param hypervisor the Cloud Hypervisor found; may block until its version is known
     * @param version    its version, empty when unknown; may block likewise
     */
    public static HostInventory probeInBackground(HostFactsProbe probe, Supplier<HypervisorFacts> hypervisor,
                                                  Supplier<Optional<ChvVersion>> version) {
        CompletableFuture<HostReport> report = new CompletableFuture<>();
        Thread.ofPlatform().name("host-facts-probe").daemon(true).start(() -> {
            try {
                HostFacts facts = probe.probe();
                List<String> warnings = HostLimits.warnings(facts, version.get());
                warnings.forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning));
                report.complete(new HostReport(facts, hypervisor.get(), warnings));
            } catch (RuntimeException | Error e) {
                report.completeExceptionally(e);
                LOG.log(System.Logger.Level.WARNING, "the host's facts could not be probed: " + e);
            }
        });
        return new HostInventory(report);
    }

    /** The report, once probed (waits for the probe). */
    public HostReport report() {
        return report.join();
    }
}
