package dev.ateom.network;

import dev.ateom.network.firewall.DroppingForwardChain;
import dev.ateom.network.firewall.DroppingForwardChains;
import dev.ateom.network.firewall.ForwardExemptions;
import dev.ateom.network.firewall.SandboxForwardRules;
import dev.ateom.network.nft.Nftables;
import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The daemon's rules in the host namespace: its own table ({@link HostRuleset}), and, where other software's forward
 * chains drop forwarded traffic by default (Docker's {@code FORWARD} policy drop, firewalld, ufw), either the narrowest
 * rules that let its sandboxes through ({@link HostFirewallMode#ALLOW}) or a warning with those rules
 * ({@link HostFirewallMode#LEAVE}). What it inserted carries a comment naming its prefix; {@link #remove} takes it out
 * again, and so does the next {@link #install} when a daemon died without its stop.
 *
 * <p>Caveat: the rules are put in at start. A firewall reloaded while the daemon runs (firewalld's reload, a Docker
 * restart that recreates its chains) loses them until the daemon's next start; the log says what was inserted where.
 */
final class HostFirewall {
    private static final System.Logger LOG = System.getLogger(HostFirewall.class.getName());

    private final NetNamespace host;
    private final String prefix;
    private final ForwardExemptions exemptions;
    private final List<String> warnings = new ArrayList<>();
    private final List<DroppingForwardChain> opened = new ArrayList<>();

    private HostFirewall(NetNamespace host, NetworkConfig config) {
        this.host = host;
        this.prefix = config.prefix();
        this.exemptions = new ForwardExemptions(new SandboxForwardRules(config.prefix(), config.pool().toString()));
    }

    /** Installs the daemon's table afresh and deals with dropping forward chains as {@code config} says. */
    static HostFirewall install(NetNamespace host, NetworkConfig config) throws IOException {
        var firewall = new HostFirewall(host, config);
        try {
            host.call(() -> Nftables.run(HostRuleset.create(config.prefix(), config.pool(), config.routedInterfaces())));
            firewall.removeLeftovers();
            firewall.handleDroppingChains(config.hostFirewall());
            firewall.warnings.addAll(HostFit.forwardingOffWarnings(host, config.prefix()));
        } catch (IOException | RuntimeException e) {
            firewall.remove(); // nothing of a failed start stays in the host's tables
            throw e;
        }
        firewall.warnings.forEach(w -> LOG.log(System.Logger.Level.WARNING, "network: {0}", w));
        return firewall;
    }

    private void removeLeftovers() {
        try {
            List<String> removed = host.call(exemptions::removeAll);
            if (!removed.isEmpty()) {
                LOG.log(System.Logger.Level.INFO, "network: removed the rules an earlier run left in {0} (comment {1})", removed,
                        exemptions.rules().comment());
            }
        } catch (IOException | RuntimeException e) {
            warnings.add("cannot look for rules an earlier run left in other tables (comment " + exemptions.rules().comment() + "): "
                    + e.getMessage());
        }
    }

    private void handleDroppingChains(HostFirewallMode mode) {
        List<DroppingForwardChain> dropping;
        try {
            dropping = host.call(() -> DroppingForwardChains.find(prefix));
        } catch (IOException | RuntimeException e) {
            warnings.add("cannot look for forward chains that drop sandbox traffic: " + e.getMessage());
            return;
        }
        for (DroppingForwardChain chain : dropping) {
            if (mode == HostFirewallMode.LEAVE) {
                warnings.add(dropsMessage(chain) + "; --network-host-firewall=leave: ateom changes nothing there. Let its interfaces through with: "
                        + String.join("; ", exemptions.rules().commandsFor(chain)));
                continue;
            }
            try {
                long started = System.nanoTime();
                host.call(() -> {
                    exemptions.insert(chain);
                    return null;
                });
                opened.add(chain);
                LOG.log(System.Logger.Level.INFO, "network: {0}; inserted {1} rules letting {2}-h* ({3}) through in {4} ms, comment {5},"
                        + " removed at stop (--network-host-firewall=leave changes nothing there)", dropsMessage(chain),
                        exemptions.rules().nftStatements().size(), prefix, exemptions.rules().pool(), (System.nanoTime() - started) / 1_000_000,
                        exemptions.rules().comment());
            } catch (IOException | RuntimeException e) {
                warnings.add(dropsMessage(chain) + " and ateom could not let its interfaces through (" + e.getMessage()
                        + "); add the rules yourself: " + String.join("; ", exemptions.rules().commandsFor(chain)));
            }
        }
    }

    private static String dropsMessage(DroppingForwardChain chain) {
        return "the forward chain " + chain.describe() + " drops forwarded traffic by default, sandbox traffic included";
    }

    /** What the operator should know and the daemon did not change (also logged at start). */
    List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** The dropping chains the daemon's rules were put into. */
    List<DroppingForwardChain> opened() {
        return List.copyOf(opened);
    }

    /** Takes the daemon's rules out of every table and removes its own table; problems are logged, not thrown. */
    void remove() {
        try {
            long started = System.nanoTime();
            List<String> removed = host.call(exemptions::removeAll);
            if (!removed.isEmpty()) {
                LOG.log(System.Logger.Level.INFO, "network: removed the rules letting {0}-h* through from {1} in {2} ms", prefix, removed,
                        (System.nanoTime() - started) / 1_000_000);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "network: rules with comment {0} not removed: {1}", exemptions.rules().comment(), e.getMessage());
        }
        try {
            host.call(() -> Nftables.run(HostRuleset.delete(prefix)));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "network: host table {0} not removed: {1}", prefix, e.getMessage());
        }
    }
}
