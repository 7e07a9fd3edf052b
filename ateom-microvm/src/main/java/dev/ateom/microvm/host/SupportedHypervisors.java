package dev.ateom.microvm.host;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The Cloud Hypervisor versions this daemon runs with: those whose behaviour the project's tables record (chv-client's
 * real-binary tests, one table per version, and the CHV stand-in playing either). Another major version may answer an
 * API call differently in a way the daemon misreads, so it is refused at start rather than trusted.
 */
public final class SupportedHypervisors {
    /** The oldest major version accepted (v53: measured against a real binary, docs/decisions.md). */
    public static final int OLDEST_MAJOR = 53;
    /** The newest major version accepted (v54: the recorded samples in reference/chv-samples). */
    public static final int NEWEST_MAJOR = 54;

    private SupportedHypervisors() {}

    public static boolean supports(ChvVersion version) {
        return version.major() >= OLDEST_MAJOR && version.major() <= NEWEST_MAJOR;
    }

    /** {@code v53 to v54}. */
    public static String range() { return "v" + OLDEST_MAJOR + " to v" + NEWEST_MAJOR; }

    /**
     * Why the binary's answer to {@code --version} rules it out, in the operator's words with what to do; empty when
     * it is a supported version. {@code hint} says how to point the daemon at another binary.
     */
    public static Optional<String> problem(Path binary, HypervisorVersionProbe.Answer answer, String hint) {
        if (answer.version().isEmpty()) {
            return Optional.of("cloud-hypervisor at '" + binary + "' did not tell its version (--version printed: " + answer.printed()
                    + "): sandboxes cannot be created, suspended or resumed. ateom supports Cloud Hypervisor " + range() + "; " + hint);
        }
        ChvVersion version = answer.version().get();
        if (supports(version)) return Optional.empty();
        return Optional.of("cloud-hypervisor at '" + binary + "' is v" + version + ", outside the versions ateom supports ("
                + range() + ", README \"Cloud Hypervisor versions\"): sandboxes cannot be created, suspended or resumed; " + hint);
    }
}
