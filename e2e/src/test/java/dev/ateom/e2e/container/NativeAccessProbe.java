package dev.ateom.e2e.container;

import com.github.luben.zstd.Zstd;
import dev.ateom.microvm.systeminfo.volume.Renameat2;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs inside the image (with its JVM and classpath) and uses the two native libraries the daemon loads from jars:
 * JNA (the daemon's renameat2 exchange, against the image's libc) and zstd-jni (snapshot archives). Both extract
 * their .so to /tmp first, so this also proves /tmp is writable. Prints one line per check; exits 1 on failure.
 */
public final class NativeAccessProbe {

    private NativeAccessProbe() {}

    public static void main(String[] args) throws Exception {
        Path a = Files.createTempDirectory("probe-a");
        Path b = Files.createTempDirectory("probe-b");
        Files.writeString(a.resolve("which"), "a");
        Files.writeString(b.resolve("which"), "b");
        Renameat2.exchange(a, b);
        String swapped = Files.readString(a.resolve("which")) + Files.readString(b.resolve("which"));
        System.out.println("renameat2 exchange: " + ("ba".equals(swapped) ? "ok" : "FAILED (" + swapped + ")"));

        byte[] data = "ateom ".repeat(1000).getBytes(StandardCharsets.UTF_8);
        byte[] compressed = Zstd.compress(data);
        boolean roundTrip = Arrays.equals(data, Zstd.decompress(compressed, data.length));
        System.out.println("zstd round trip: " + (roundTrip && compressed.length < data.length ? "ok" : "FAILED"));

        if (!"ba".equals(swapped) || !roundTrip) System.exit(1);
    }
}
