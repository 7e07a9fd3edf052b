package dev.ateom.process;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The program a child is exec'd through so that it gets SIGKILL when the thread that started it ends: Java cannot
 * run code between fork and exec, so something the child runs first must call {@code prctl(PR_SET_PDEATHSIG)}.
 *
 * <p>{@code ateom-die-with-parent} (this module's {@code src/main/c}, static) where it is built or installed, else
 * util-linux's {@code setpriv --pdeathsig SIGKILL}. Both exec the program under the same pid, and the signal survives
 * the exec. The helper is preferred because it is cheaper: setpriv is a dynamic binary that loads libcap-ng and adds
 * ~2 ms to a child's start on the 2-core test host, the helper ~1, three starts at once in every bring-up
 * (docs/decisions.md, issue 27); and it checks that its parent is still the daemon once the signal is set (a parent
 * gone before it would never send it), which setpriv does not.
 *
 * <p>Where the helper is looked for: {@code -Dateom.die-with-parent}, {@code $ATEOM_DIE_WITH_PARENT} (bin/ateom sets
 * it to the build's), the build's {@code child-process/target/ateom-die-with-parent} (tests: from the repository root
 * or a module's dir), then the container image's {@code /usr/bin/ateom-die-with-parent}.
 *
 * @param program the helper or setpriv
 * @param helper  whether {@code program} is ateom-die-with-parent (else setpriv)
 */
public record ParentDeathWrapper(Path program, boolean helper) {
    /** Where util-linux installs setpriv. */
    public static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    static final String HELPER_NAME = "ateom-die-with-parent";

    /** The helper if one is there, else setpriv if it is installed, else empty: nothing can make a child die with us. */
    public static Optional<ParentDeathWrapper> find() {
        Optional<ParentDeathWrapper> helper = helperCandidates().stream().filter(Files::isExecutable).findFirst()
                .map(path -> new ParentDeathWrapper(path, true));
        if (helper.isPresent()) return helper;
        return Files.isExecutable(SETPRIV) ? Optional.of(new ParentDeathWrapper(SETPRIV, false)) : Optional.empty();
    }

    /** {@code argv} behind this wrapper, for a child of this JVM. */
    public List<String> wrap(List<String> argv) {
        List<String> wrapped = new ArrayList<>();
        wrapped.add(program.toString());
        if (helper) {
            wrapped.add(Long.toString(ProcessHandle.current().pid()));
        } else {
            wrapped.addAll(List.of("--pdeathsig", "SIGKILL", "--"));
        }
        wrapped.addAll(argv);
        return wrapped;
    }

    private static List<Path> helperCandidates() {
        List<Path> candidates = new ArrayList<>();
        String property = System.getProperty("ateom.die-with-parent");
        if (property != null && !property.isBlank()) candidates.add(Path.of(property));
        String env = System.getenv("ATEOM_DIE_WITH_PARENT");
        if (env != null && !env.isBlank()) candidates.add(Path.of(env));
        String repo = System.getProperty("ateom.repo.root");
        if (repo != null && !repo.isBlank()) candidates.add(Path.of(repo, "child-process", "target", HELPER_NAME));
        candidates.add(Path.of("child-process", "target", HELPER_NAME).toAbsolutePath());
        candidates.add(Path.of("..", "child-process", "target", HELPER_NAME).toAbsolutePath().normalize());
        candidates.add(Path.of("/usr/bin", HELPER_NAME));
        return candidates;
    }
}
