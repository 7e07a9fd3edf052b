package dev.ateom.microvm.cli;

import java.io.PrintStream;

/**
 * A one-line progress bar on stderr ({@code pushing snap-1 [########......] 57% 146 MiB of 256 MiB}), redrawn in
 * place, when stderr is a terminal; prints nothing otherwise so scripts get clean output.
 */
final class ProgressBar {
    private static final int WIDTH = 30;
    private final String what;
    private final PrintStream err;
    private final boolean enabled;

    ProgressBar(String what) {
        this.what = what;
        this.err = System.err;
        this.enabled = System.console() != null;
    }

    void show(String state, long done, long total) {
        if (!enabled) return;
        err.print("\r" + line(what, state, done, total) + "   ");
    }

    void finish(String state, long done, long total) {
        if (!enabled) return;
        err.println("\r" + line(what, state, done, total) + "   ");
    }

    static String line(String what, String state, long done, long total) {
        int percent = total <= 0 ? 0 : (int) Math.min(100, done * 100 / total);
        int filled = percent * WIDTH / 100;
        return what + " [" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + percent + "% "
                + ClientCommand.humanBytes(done) + " of " + ClientCommand.humanBytes(total) + " " + state;
    }
}
