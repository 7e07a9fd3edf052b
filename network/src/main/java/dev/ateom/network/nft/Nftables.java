package dev.ateom.network.nft;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.ateom.network.os.LibC;
import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ProcessKill;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * nftables through libnftables in this process (the Debian {@code nftables} package installs it): the same parser
 * and transaction semantics as {@code nft -f}, without a process per change, so applying a slot's policy costs
 * about a millisecond. A script runs as one atomic transaction in the network namespace of the calling thread
 * (the library opens its netlink socket when its context is created, and a context lives for one call).
 *
 * <p>Caveat: libnftables waits for netlink answers with {@code select(2)}, and glibc aborts the whole process when
 * a descriptor numbered {@value #FD_SETSIZE} or above is put in an {@code fd_set}. The library's socket takes the
 * lowest free descriptor, so when the lowest free one is near that limit (a daemon with many sandboxes, or a leak)
 * the script goes to the {@code nft} binary instead: slower, but a child starts with only stdin, stdout and stderr;
 * it runs in the calling thread's network namespace (through nsenter), like the library's socket would.
 */
public final class Nftables {
    private static final int NFT_CTX_DEFAULT = 0;
    private static final int NFT_CTX_OUTPUT_JSON = 1 << 4;
    /** libnftables keeps some global parser state: one command at a time in this process. */
    private static final Object LOCK = new Object();
    static final int FD_SETSIZE = 1024;
    /** Room for descriptors other threads open between the check and the library's socket(2). */
    private static final int HEADROOM = 64;
    private static final long CHILD_TIMEOUT_SECONDS = 30;
    private static final String NSENTER = "/usr/bin/nsenter";

    interface LibNftables extends Library {
        Pointer nft_ctx_new(int flags);

        void nft_ctx_free(Pointer ctx);

        int nft_ctx_buffer_output(Pointer ctx);

        int nft_ctx_buffer_error(Pointer ctx);

        String nft_ctx_get_output_buffer(Pointer ctx);

        String nft_ctx_get_error_buffer(Pointer ctx);

        void nft_ctx_output_set_flags(Pointer ctx, int flags);

        int nft_run_cmd_from_buffer(Pointer ctx, String buffer);
    }

    private static volatile LibNftables library;

    private Nftables() {
    }

    /** Loads libnftables; fails with a hint when the nftables package is missing. */
    public static void requireAvailable() throws IOException {
        library();
    }

    /** Runs {@code script} (nft syntax, several commands allowed) as one transaction; returns nft's output. */
    public static String run(String script) throws IOException {
        return run(script, NFT_CTX_DEFAULT);
    }

    /** Runs a listing command with JSON output ({@code nft -j}). */
    public static String runJson(String script) throws IOException {
        return run(script, NFT_CTX_OUTPUT_JSON);
    }

    private static String run(String script, int outputFlags) throws IOException {
        LibNftables nft = library();
        synchronized (LOCK) {
            if (lowestFreeDescriptor() >= FD_SETSIZE - HEADROOM) {
                return runInChild(script, outputFlags == NFT_CTX_OUTPUT_JSON);
            }
            Pointer ctx = nft.nft_ctx_new(NFT_CTX_DEFAULT);
            if (ctx == null) {
                throw new NftException("nft_ctx_new failed (netlink socket?)");
            }
            try {
                nft.nft_ctx_buffer_output(ctx);
                nft.nft_ctx_buffer_error(ctx);
                if (outputFlags != 0) {
                    nft.nft_ctx_output_set_flags(ctx, outputFlags);
                }
                int rc = nft.nft_run_cmd_from_buffer(ctx, script);
                String output = nft.nft_ctx_get_output_buffer(ctx);
                if (rc != 0) {
                    String error = nft.nft_ctx_get_error_buffer(ctx);
                    throw new NftException("nft refused: " + (error == null || error.isBlank() ? "rc " + rc : error.strip())
                            + "\n--- script ---\n" + script);
                }
                return output == null ? "" : output;
            } finally {
                nft.nft_ctx_free(ctx);
            }
        }
    }

    /** open(2) answers the lowest free descriptor, which is the one the library's socket would get. */
    static int lowestFreeDescriptor() throws IOException {
        int probe = LibC.open("/dev/null", LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        LibC.close(probe);
        return probe;
    }

    private static String runInChild(String script, boolean json) throws IOException {
        // nft 1.0.6 prints no JSON for listings read with -f, so a JSON listing goes as one argument (nft joins its
        // arguments into one command line).
        List<String> nft = json ? List.of(nftBinary(), "-j", script) : List.of(nftBinary(), "-f", "-");
        // The ChildLauncher starts children from a thread of its own, outside the namespace this thread is in, so
        // nsenter puts nft into this thread's network namespace (the thread waits for nft, so its /proc entry stays).
        List<String> command = new ArrayList<>(List.of(NSENTER, "--net=" + Path.of("/proc").resolve(
                Files.readSymbolicLink(Path.of("/proc/thread-self"))).resolve("ns/net")));
        command.addAll(nft);
        Path errors = Files.createTempFile("ateom-nft", ".err");
        try {
            Process child = ChildLauncher.start(new ProcessBuilder(command).redirectError(errors.toFile()), true);
            try (var in = child.getOutputStream()) {
                if (!json) {
                    in.write(script.getBytes(StandardCharsets.UTF_8));
                }
            }
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                ProcessKill.killTree(child, Duration.ofSeconds(CHILD_TIMEOUT_SECONDS));
                throw new NftException("nft did not finish in " + CHILD_TIMEOUT_SECONDS + " s\n--- script ---\n" + script);
            }
            if (child.exitValue() != 0) {
                String error = Files.readString(errors).strip();
                throw new NftException("nft refused: " + (error.isEmpty() ? "exit " + child.exitValue() : error)
                        + "\n--- script ---\n" + script);
            }
            return output;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while nft ran", e);
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    private static String nftBinary() {
        for (String candidate : List.of("/usr/sbin/nft", "/sbin/nft")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "nft";
    }

    private static LibNftables library() throws IOException {
        LibNftables loaded = library;
        if (loaded == null) {
            synchronized (LOCK) {
                if (library == null) {
                    try {
                        library = Native.load("libnftables.so.1", LibNftables.class);
                    } catch (UnsatisfiedLinkError e) {
                        throw new IOException("libnftables.so.1 is missing: install the Debian package nftables (scripts/setup.sh does)", e);
                    }
                }
                loaded = library;
            }
        }
        return loaded;
    }
}
