package dev.ateom.microvm.sandbox.operation;

import dev.ateom.microvm.PrivateDirs;
import dev.ateom.microvm.sandbox.Rollback;
import dev.ateom.microvm.sandbox.TreeRemoval;
import dev.ateom.microvm.vm.SandboxLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

/**
 * The directories of a new sandbox: its state dir, system-info and run dir, and for a create the durable dirs. The
 * sandbox's own dirs are 0700; durable and system-info keep the usual modes, since the guest sees them as its mounts.
 */
final class SandboxDirs {
    private SandboxDirs() {}

    /**
     * @param durableDirs the durable dirs to make empty, or null for a clone, whose durable dir is laid down whole
     *                    by the archive extraction (which wants it absent)
     */
    static void create(SandboxLayout layout, List<String> durableDirs, Rollback rollback) {
        try {
            PrivateDirs.ensure(layout.sandboxDir());
            Files.createDirectories(layout.systemInfoDir());
            if (durableDirs != null) {
                Files.createDirectories(layout.durableDir());
                for (String dir : durableDirs) Files.createDirectories(layout.durableDir().resolve(dir));
            }
            PrivateDirs.ensure(layout.runDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directories of sandbox " + layout.sandboxId(), e);
        }
        rollback.add("remove durable, system-info and run dirs", () -> {
            TreeRemoval.removeRecursively(layout.durableDir());
            TreeRemoval.removeRecursively(layout.systemInfoDir());
            TreeRemoval.removeRecursively(layout.runDir());
        });
    }
}
