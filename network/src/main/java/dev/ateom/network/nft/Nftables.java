package dev.ateom.network.nft;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.io.IOException;

/**
 * nftables through libnftables in this process (the Debian {@code nftables} package installs it): the same parser
 * and transaction semantics as {@code nft -f}, without a process per change, so applying a slot's policy costs
 * about a millisecond. A script runs as one atomic transaction in the network namespace of the calling thread
 * (the library opens its netlink socket when its context is created, and a context lives for one call).
 */
public final class Nftables {
    private static final int NFT_CTX_DEFAULT = 0;
    private static final int NFT_CTX_OUTPUT_JSON = 1 << 4;
    /** libnftables keeps some global parser state: one command at a time in this process. */
    private static final Object LOCK = new Object();

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
