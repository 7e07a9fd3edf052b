package dev.ateom.network;

import java.io.IOException;

/**
 * Removes every part of a slot: its host ports, TAP, namespace, veth pair and the host's connection-tracking entries
 * of its address. Its number rests for the reuse delay only when all of that went; otherwise it stays out of use
 * until the next start reclaims it.
 */
final class SlotTeardown {
    private static final System.Logger LOG = System.getLogger(SlotTeardown.class.getName());

    private final SlotPolicies policies;
    private final SlotBuilder builder;
    private final SlotIndexes indexes;

    SlotTeardown(SlotPolicies policies, SlotBuilder builder, SlotIndexes indexes) {
        this.policies = policies;
        this.builder = builder;
        this.indexes = indexes;
    }

    /** Returns the first failure (the other parts are removed regardless), or null. */
    IOException tearDown(Slot slot) {
        IOException failure = policies.releasePorts(slot.reservations(), slot);
        if (slot.tap() != null) {
            slot.tap().close();
        }
        slot.namespace().close();
        try {
            builder.destroy(slot.slotName());
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        if (failure == null) {
            indexes.release(slot.slotName().index());
        } else {
            LOG.log(System.Logger.Level.ERROR, "network: slot {0} not removed completely; its address stays out of use: {1}",
                    slot.name(), failure.getMessage());
        }
        return failure;
    }

    /** Tears down a slot a failed call built or configured; a teardown failure is added to {@code cause}. */
    void tearDownAfter(Slot slot, Exception cause) {
        slot.markReleased();
        IOException failure = tearDown(slot);
        if (failure != null) {
            cause.addSuppressed(failure);
        }
    }
}
