package dev.ateom.microvm.sandbox;

import java.util.function.Consumer;

/**
 * Whom a pull from the snapshot store is for, so that the store can refuse it before a byte is pulled when what
 * follows the pull would be refused anyway (docs/decisions.md, "Refuse before pulling").
 */
public sealed interface PullFor {
    /** A clone or resume that will run sandbox {@code sandboxId} (a clone's new one): another host may hold its lease. */
    record Sandbox(String sandboxId) implements PullFor {}

    /**
     * An adopt: the sandbox is the snapshot's own (its id is in the store's manifest). {@code requireFreeHere} throws when
     * this host already has a sandbox of that id; the lease must be obtainable from the store.
     */
    record Adopt(Consumer<String> requireFreeHere) implements PullFor {}
}
