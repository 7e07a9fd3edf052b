package dev.ateom.microvm.sandbox;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** Ids of sandboxes whose request names none: {@code sbx-} and ten hex digits. */
public final class SandboxIds {
    private SandboxIds() {}

    public static String generate() {
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        return "sbx-" + HexFormat.of().formatHex(random);
    }
}
