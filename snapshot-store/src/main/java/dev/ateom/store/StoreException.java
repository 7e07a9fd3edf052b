package dev.ateom.store;

import java.io.IOException;
import java.util.Optional;

/**
 * Any failure of a store operation. Subclasses say what kind ({@link StoreUnavailableException},
 * {@link BucketNotFoundException}, {@link ChunkCorruptException}, ...); {@link #option()} names the setting
 * to look at when one is to blame, so the daemon can name it in a warning or a problem answer.
 */
public class StoreException extends IOException {
    private final StoreOption option;

    public StoreException(String message) {
        this(message, null, null);
    }

    public StoreException(String message, StoreOption option, Throwable cause) {
        super(option == null ? message : message + " (check " + option.flag() + ")", cause);
        this.option = option;
    }

    public Optional<StoreOption> option() {
        return Optional.ofNullable(option);
    }
}
