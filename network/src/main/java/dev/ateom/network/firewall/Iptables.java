package dev.ateom.network.firewall;

import dev.ateom.network.os.NamespacedCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code iptables} binary of one backend, run in the network namespace of the calling thread. Only used for the
 * tables iptables owns, and only at start and stop: a process per call is fine there.
 */
public final class Iptables {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Seconds to wait for the xtables lock another iptables holds (the legacy backend's; nft's ignores it). */
    private static final String LOCK_WAIT_SECONDS = "5";

    private final FirewallBackend backend;
    private final String binary;

    private Iptables(FirewallBackend backend, String binary) {
        this.backend = backend;
        this.binary = binary;
    }

    /** The binary of {@code backend} when it is installed (Debian's {@code iptables} package has both). */
    public static Optional<Iptables> find(FirewallBackend backend) {
        String name = switch (backend) {
            case IPTABLES_NFT -> "iptables-nft";
            case IPTABLES_LEGACY -> "iptables-legacy";
            case NFTABLES -> throw new IllegalArgumentException("nftables' own tables are not iptables'");
        };
        return Optional.ofNullable(NamespacedCommand.firstExecutable(List.of("/usr/sbin/" + name, "/sbin/" + name)))
                .map(binary -> new Iptables(backend, binary));
    }

    public FirewallBackend backend() {
        return backend;
    }

    public String binary() {
        return binary;
    }

    /** {@code iptables -t <table> -S}: every chain and rule of the table. */
    public IptablesListing list(String table) throws IOException {
        return IptablesListing.parse(run(List.of("-t", table, "-S")));
    }

    /** Runs {@code iptables -w 5 <arguments>} and returns what it printed; a refusal is an IOException with its words. */
    public String run(List<String> arguments) throws IOException {
        List<String> argv = new ArrayList<>(List.of(binary, "-w", LOCK_WAIT_SECONDS));
        argv.addAll(arguments);
        NamespacedCommand.Result result = NamespacedCommand.run(argv, null, TIMEOUT);
        if (!result.succeeded()) {
            throw new IOException(String.join(" ", argv) + " failed (exit " + result.exitCode() + "): " + result.errors());
        }
        return result.output();
    }
}
