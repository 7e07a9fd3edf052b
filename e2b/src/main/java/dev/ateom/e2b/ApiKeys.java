package dev.ateom.e2b;

import dev.ateom.microvm.http.ApiToken;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;

/**
 * The keys the E2B listener accepts in {@code X-API-Key}: the daemon's own API token, and each line of
 * {@code --e2b-keys-file} (blank lines and {@code #} comments skipped). Every key is compared in constant time, and
 * all of them on every request, so the answer's timing says nothing about which key came close.
 */
final class ApiKeys {
    private final ApiToken daemonToken;
    private final List<byte[]> keys;

    private ApiKeys(ApiToken daemonToken, List<byte[]> keys) {
        this.daemonToken = daemonToken;
        this.keys = keys;
    }

    static ApiKeys load(ApiToken daemonToken, Path keysFile) {
        if (keysFile == null) return new ApiKeys(daemonToken, List.of());
        try {
            List<byte[]> keys = Files.readAllLines(keysFile).stream().map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .map(line -> line.getBytes(StandardCharsets.UTF_8)).toList();
            for (byte[] key : keys) {
                if (key.length < 16) throw new IllegalArgumentException("e2b-keys-file " + keysFile + ": a key shorter than 16 characters");
            }
            return new ApiKeys(daemonToken, keys);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read e2b-keys-file " + keysFile, e);
        }
    }

    boolean accepts(String candidate) {
        if (candidate == null) return false;
        byte[] given = candidate.getBytes(StandardCharsets.UTF_8);
        boolean ok = daemonToken.matches(candidate);
        for (byte[] key : keys) {
            ok |= MessageDigest.isEqual(key, given);
        }
        return ok;
    }
}
