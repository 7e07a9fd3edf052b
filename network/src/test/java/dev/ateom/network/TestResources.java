package dev.ateom.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** nft rulesets as the kernel lists them, kept verbatim (tabs and all) in test resource files. */
public final class TestResources {
    private TestResources() {}

    /** The resource {@code name} relative to this package ({@code firewall/x.nft} for a subpackage's). */
    public static String text(String name) {
        try (InputStream in = TestResources.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("test resource " + name + " is missing");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
