package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads this host's {@link CpuProfile} from /proc/cpuinfo (x86 keys, with the arm64 ones as fallback). */
public final class CpuInfo {
    private CpuInfo() {
    }

    public static CpuProfile current() throws IOException {
        return parse(Files.readString(Path.of("/proc/cpuinfo")));
    }

    /** Flags are those every processor lists (they may differ on hybrid parts); the rest is from the first processor. */
    static CpuProfile parse(String cpuinfo) {
        List<Map<String, String>> processors = new ArrayList<>();
        Map<String, String> current = new HashMap<>();
        for (String line : cpuinfo.split("\n", -1)) {
            int colon = line.indexOf(':');
            if (line.isBlank()) {
                if (!current.isEmpty()) {
                    processors.add(current);
                    current = new HashMap<>();
                }
            } else if (colon > 0) {
                current.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        if (!current.isEmpty()) {
            processors.add(current);
        }
        if (processors.isEmpty()) {
            return new CpuProfile("unknown", "unknown", "unknown", "", List.of());
        }
        Map<String, String> first = processors.getFirst();
        Set<String> flags = null;
        for (Map<String, String> processor : processors) {
            String list = first(processor, "flags", "Features");
            if (list.isEmpty()) {
                continue;
            }
            Set<String> these = new LinkedHashSet<>(Arrays.asList(list.split("\\s+")));
            if (flags == null) {
                flags = these;
            } else {
                flags.retainAll(these);
            }
        }
        return new CpuProfile(first(first, "vendor_id", "CPU implementer"), first(first, "cpu family", "CPU architecture"),
                first(first, "model", "CPU part"), first(first, "model name", "Processor"), flags == null ? List.of() : List.copyOf(flags));
    }

    private static String first(Map<String, String> processor, String key, String fallback) {
        String value = processor.get(key);
        if (value == null) {
            value = processor.get(fallback);
        }
        return value == null ? "" : value;
    }
}
