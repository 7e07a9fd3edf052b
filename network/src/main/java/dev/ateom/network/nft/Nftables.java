package dev.ateom.network.nft;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.ateom.network.os.LibC;
import dev.ateom.network.os.NamespacedCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
    private static final int NFT_CTX_OUTPUT_STATELESS = 1 << 2;
    private static final int NFT_CTX_OUTPUT_HANDLE = 1 << 3;
    private static final int NFT_CTX_OUTPUT_JSON = 1 << 4;
    private static final int NFT_CTX_OUTPUT_TERSE = 1 << 11;
    /** libnftables keeps some global parser state: one command at a time in this process. */
    private static final Object LOCK = new Object();
    static final int FD_SETSIZE = 1024;
    /** Room for descriptors other threads open between the check and the library's socket(2). */
    private static final int HEADROOM = 64;
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(30);

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

    /**
     * Runs a listing command as {@code nft -a -s -t} shows it: every table, chain and rule with its
     * {@code # handle <n>}, counters without their values, sets without their elements.
     */
    public static String runListingWithHandles(String script) throws IOException {
        return run(script, NFT_CTX_OUTPUT_HANDLE | NFT_CTX_OUTPUT_STATELESS | NFT_CTX_OUTPUT_TERSE);
    }

    private static String run(String script, int outputFlags) throws IOException {
        LibNftables nft = library();
        synchronized (LOCK) {
            if (lowestFreeDescriptor() >= FD_SETSIZE - HEADROOM) {
                return runInChild(script, outputFlags);
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

    private static String runInChild(String script, int outputFlags) throws IOException {
        List<String> nft = new ArrayList<>(List.of(nftBinary()));
        if ((outputFlags & NFT_CTX_OUTPUT_HANDLE) != 0) {
            nft.add("-a");
        }
        if ((outputFlags & NFT_CTX_OUTPUT_STATELESS) != 0) {
            nft.add("-s");
        }
        if ((outputFlags & NFT_CTX_OUTPUT_TERSE) != 0) {
            nft.add("-t");
        }
        // nft 1.0.6 prints no JSON for listings read with -f, so a JSON listing goes as one argument (nft joins its
        // arguments into one command line).
        boolean json = (outputFlags & NFT_CTX_OUTPUT_JSON) != 0;
        nft.addAll(json ? List.of("-j", script) : List.of("-f", "-"));
        NamespacedCommand.Result result = NamespacedCommand.run(nft, json ? null : script, CHILD_TIMEOUT);
        if (!result.succeeded()) {
            throw new NftException("nft refused: " + (result.errors().isEmpty() ? "exit " + result.exitCode() : result.errors())
                    + "\n--- script ---\n" + script);
        }
        return result.output();
    }

    private static String nftBinary() {
        String found = NamespacedCommand.firstExecutable(List.of("/usr/sbin/nft", "/sbin/nft"));
        return found == null ? "nft" : found;
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
