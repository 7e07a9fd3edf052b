package dev.ateom.microvm.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * Shows "suspending sbx-1 … 1.4 s" on stderr while a long request runs, when stderr is a terminal;
 * prints nothing otherwise so scripts get clean output.
 */
final class ProgressLine {
    private ProgressLine() {}

    static <T> T around(String what, Callable<T> work) throws Exception {
        PrintStream err = System.err;
        if (System.console() == null) return work.call();
        long start = System.nanoTime();
        Thread ticker = Thread.ofVirtual().start(() -> {
            String[] spinner = {"|", "/", "-", "\\"};
            int i = 0;
            while (!Thread.currentThread().isInterrupted()) {
                err.printf("\r%s %s … %.1f s ", spinner[i++ % spinner.length], what, (System.nanoTime() - start) / 1e9);
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            return work.call();
        } finally {
            ticker.interrupt();
            ticker.join();
            err.printf("\r%s done in %.1f s%n", what, (System.nanoTime() - start) / 1e9);
        }
    }
}
