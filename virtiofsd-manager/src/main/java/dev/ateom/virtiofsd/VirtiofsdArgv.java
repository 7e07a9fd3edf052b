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
            "--sandbox", "--thread-pool-size", "--log-level", "--modcaps", "--readonly");

    /**
     * Capabilities every share's virtiofsd drops from its default set (docs/decisions.md, "What a guest may write to
     * its durable share"): no device nodes ({@code mknod}) and no file capabilities ({@code setfcap}) on the host,
     * whatever a root guest asks for. chown, setuid/setgid (virtiofsd acting as the guest's user), fowner, fsetid
     * and dac_override stay: a root guest needs them for ordinary ownership and permission semantics.
     */
    public static final String DROPPED_CAPABILITIES = "-mknod:-setfcap";

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
        argv.add("--modcaps=" + DROPPED_CAPABILITIES);
        if (kind.readOnly()) {
            argv.add("--readonly");
        }
        return List.copyOf(argv);
    }
}
