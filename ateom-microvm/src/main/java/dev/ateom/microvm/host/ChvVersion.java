package dev.ateom.microvm.host;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Cloud Hypervisor version, as {@code cloud-hypervisor --version} prints it ({@code cloud-hypervisor v54.0.0}) and
 * {@code vmm.ping} and snapshot manifests record it ({@code 54.0.0}).
 */
public record ChvVersion(int major, int minor, int patch) {
    private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    /** The first version in {@code text}, or empty. */
    public static Optional<ChvVersion> parse(String text) {
        Matcher m = VERSION.matcher(text == null ? "" : text);
        if (!m.find()) return Optional.empty();
        return Optional.of(new ChvVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
    }

    /** {@code 54.0.0}, as manifests record it. */
    @Override
    public String toString() { return major + "." + minor + "." + patch; }
}
