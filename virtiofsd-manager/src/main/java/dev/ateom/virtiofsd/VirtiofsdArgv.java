package dev.ateom.virtiofsd;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns a {@link ShareSpec} into virtiofsd's command line. Every flag used here is listed in {@link #REQUIRED_FLAGS}. */
public final class VirtiofsdArgv {

    /** Flags this builder emits; a virtiofsd whose {@code --help} lacks one is refused. */
    public static final List<String> REQUIRED_FLAGS = List.of(
            "--socket-path", "--shared-dir", "--tag", "--cache", "--migration-mode", "--migration-on-error",
            "--sandbox", "--thread-pool-size", "--log-level", "--readonly");

    /** Flag values that older versions do not know, keyed by the flag; checked against {@code --help} too. */
    public static final Map<String, String> REQUIRED_VALUES = Map.of(
            "--migration-mode", "find-paths",
            "--migration-on-error", "guest-error");

    private VirtiofsdArgv() {}

    /** The full argv, binary first, without any wrapper. */
    public static List<String> of(Path binary, ShareSpec spec) {
        ShareKind kind = spec.kind();
        ShareOptions options = spec.options();
        List<String> argv = new ArrayList<>();
        argv.add(binary.toString());
        argv.add("--socket-path=" + spec.socketPath());
        argv.add("--shared-dir=" + spec.sharedDir());
        argv.add("--tag=" + kind.tag());
        argv.add("--cache=" + kind.cache().flagValue());
        argv.add("--migration-mode=find-paths");
        argv.add("--migration-on-error=" + kind.migrationOnError().flagValue());
        argv.add("--sandbox=" + options.sandbox().flagValue());
        argv.add("--thread-pool-size=" + options.threadPoolSize());
        argv.add("--log-level=" + options.logLevel().flagValue());
        if (kind.readOnly()) {
            argv.add("--readonly");
        }
        return List.copyOf(argv);
    }
}
