package dev.ateom.network.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Kernel settings under {@code /proc/sys}. The {@code net.*} ones belong to the network namespace of the calling
 * thread, so call these inside {@link NetNamespace#call} to reach a given namespace.
 */
public final class Sysctl {
    private static final Path ROOT = Path.of("/proc/sys");

    private Sysctl() {
    }

    /** {@code key} in slash form, e.g. {@code net/ipv4/conf/eth0/forwarding}. */
    public static String read(String key) throws IOException {
        return Files.readString(ROOT.resolve(key), StandardCharsets.US_ASCII).strip();
    }

    public static void write(String key, String value) throws IOException {
        Files.writeString(ROOT.resolve(key), value, StandardCharsets.US_ASCII);
    }

    /** {@code net/ipv4/conf/<interface>/<setting>}. */
    public static String ipv4Interface(String interfaceName, String setting) {
        return "net/ipv4/conf/" + interfaceName + "/" + setting;
    }

    public static String ipv6Interface(String interfaceName, String setting) {
        return "net/ipv6/conf/" + interfaceName + "/" + setting;
    }
}
