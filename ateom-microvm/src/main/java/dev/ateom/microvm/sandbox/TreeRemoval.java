package dev.ateom.microvm.sandbox;

import dev.ateom.snapshot.TreeDeleter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Removes a directory tree without following symlinks (a guest-made symlink must never redirect a delete). */
public final class TreeRemoval {
    private TreeRemoval() {}

    public static void removeRecursively(Path root) {
        try {
            TreeDeleter.delete(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + root, e);
        }
    }
}
