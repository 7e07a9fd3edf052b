package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.config.ConfigOption;
import dev.ateom.microvm.config.DaemonConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which host paths a sandbox spec may hand to a guest (README, "Allowed roots"): kernel, initramfs and rootfs only
 * inside {@code --image-roots}, hostDirectory sources only inside {@code --host-directory-roots}, both judged by
 * the path with every symlink resolved. The daemon's own state dir, run dir and token file are never allowed, nor
 * a directory that contains one of them, whatever the roots say.
 * <p>A refusal says the same for a path that does not exist, cannot be resolved, lies outside the roots or in
 * the daemon's own files, so a token holder learns nothing about the host beyond the roots; only inside them
 * does it say what is wrong with the file (a directory where a file belongs, unreadable).
 */
public final class HostPathPolicy {
    /** What a spec field names, and so which roots and which file type apply. */
    public enum Use {
        IMAGE_FILE(ConfigOption.IMAGE_ROOTS, false),
        IMAGE_DIRECTORY(ConfigOption.IMAGE_ROOTS, true),
        HOST_DIRECTORY(ConfigOption.HOST_DIRECTORY_ROOTS, true);

        private final ConfigOption roots;
        private final boolean directory;

        Use(ConfigOption roots, boolean directory) {
            this.roots = roots;
            this.directory = directory;
        }
    }

    private final List<Path> imageRoots;
    private final List<Path> hostDirectoryRoots;
    private final List<Path> daemonOwn;

    public HostPathPolicy(List<Path> imageRoots, List<Path> hostDirectoryRoots, List<Path> daemonOwn) {
        this.imageRoots = List.copyOf(imageRoots);
        this.hostDirectoryRoots = List.copyOf(hostDirectoryRoots);
        this.daemonOwn = List.copyOf(daemonOwn);
    }

    public static HostPathPolicy of(DaemonConfig config) {
        return new HostPathPolicy(config.imageRoots(), config.hostDirectoryRoots(),
                List.of(config.stateDir(), config.runDir(), config.tokenFile()));
    }

    /** Why {@code value} may not be used as {@code use}, or empty when it may. */
    public Optional<String> problem(String value, Use use) {
        Path path;
        try {
            path = Path.of(value);
        } catch (InvalidPathException e) {
            return Optional.of("is not a valid path (it contains a NUL character)");
        }
        if (!path.isAbsolute()) return Optional.of("must be an absolute path");
        Optional<Path> real = realPath(path);
        if (real.isEmpty() || !insideAny(real.get(), roots(use)) || touchesDaemonOwn(real.get())) {
            return Optional.of(notAllowed(use));
        }
        Path file = real.get();
        if (use.directory && !Files.isDirectory(file)) return Optional.of("is not a directory");
        if (!use.directory && !Files.isRegularFile(file)) return Optional.of("is not a regular file");
        if (!Files.isReadable(file)) return Optional.of("is not readable by the daemon");
        return Optional.empty();
    }

    private static String notAllowed(Use use) {
        String what = use.directory ? "an existing directory" : "an existing file";
        return "must name " + what + " inside the allowed roots (" + use.roots.flag() + "), outside the daemon's own state";
    }

    private List<Path> roots(Use use) {
        List<Path> configured = use.roots == ConfigOption.IMAGE_ROOTS ? imageRoots : hostDirectoryRoots;
        List<Path> real = new ArrayList<>();
        for (Path root : configured) realPath(root).ifPresent(real::add);
        return real;
    }

    /** In the daemon's own files, or (for a directory) above one of them: both would hand them to a guest. */
    private boolean touchesDaemonOwn(Path real) {
        for (Path own : daemonOwn) {
            Path ownReal = realPath(own).orElse(own.toAbsolutePath().normalize());
            if (real.startsWith(ownReal) || ownReal.startsWith(real)) return true;
        }
        return false;
    }

    private static boolean insideAny(Path real, List<Path> roots) {
        return roots.stream().anyMatch(real::startsWith);
    }

    private static Optional<Path> realPath(Path path) {
        try {
            return Optional.of(path.toRealPath());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
