package dev.ateom.microvm.jail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The host's memory, from {@code /proc/meminfo}. */
final class HostMemory {
    private static final Pattern TOTAL = Pattern.compile("(?m)^MemTotal:\\s+(\\d+) kB$");
    /** Where /proc/meminfo cannot be read: the largest guest a spec may ask for (SandboxSpecValidator). */
    private static final long FALLBACK_MIB = 262_144;

    private HostMemory() {}

    static long totalMib() {
        try {
            Matcher m = TOTAL.matcher(Files.readString(Path.of("/proc/meminfo")));
            return m.find() ? Long.parseLong(m.group(1)) >> 10 : FALLBACK_MIB;
        } catch (IOException | NumberFormatException e) {
            return FALLBACK_MIB;
        }
    }
}
