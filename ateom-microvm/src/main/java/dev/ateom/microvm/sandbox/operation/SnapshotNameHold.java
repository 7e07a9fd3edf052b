package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.sandbox.SnapshotTags;
import dev.ateom.microvm.timing.OperationProgress;

import java.util.function.Supplier;

/**
 * A snapshotting operation (suspend, checkpoint) runs holding its snapshot's name, so no other snapshot can take it
 * meanwhile; a name that is taken refuses the operation before anything is paused. Holding it is the operation's
 * admission: {@code ?async=true} answers 202 from here.
 */
public final class SnapshotNameHold {
    private SnapshotNameHold() {}

    public static <T> T holding(OperationContext context, SandboxEntry entry, SnapshotTags tags, Supplier<T> operation) {
        try (var name = context.snapshots().reserveName(tags.name(), entry.record().id(), entry.record().state())) {
            OperationProgress.current().admitted(entry.record().id());
            return operation.get();
        }
    }
}
