package dev.ateom.microvm.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** Where the tests find the setup script's tools and the CHV stand-in, and which processes they leaked. */
public final class TestTools {
    private TestTools() {}

    public static Path repoRoot() {
        return Path.of(System.getProperty("ateom.repo.root", System.getProperty("user.dir") + "/..")).toAbsolutePath().normalize();
    }

    public static Path virtiofsd() {
        String env = System.getenv("ATEOM_VIRTIOFSD");
        Path path = env != null ? Path.of(env) : repoRoot().resolve(".tools/virtiofsd/bin/virtiofsd");
        if (!Files.isExecutable(path)) throw new IllegalStateException("virtiofsd not found at " + path + ": run scripts/setup.sh");
        return path;
    }

    public static Path standIn() {
        Path path = repoRoot().resolve("fixtures/bin/chv-standin");
        if (!Files.isDirectory(repoRoot().resolve("fixtures/target/lib"))) {
            throw new IllegalStateException("the CHV stand-in is not built: run mvn -pl fixtures package");
        }
        return path;
    }

    private static boolean isIdlePoolMember(ProcessHandle process) {
        List<String> args = process.info().arguments().map(List::of).orElse(List.of());
        int socket = args.indexOf("--api-socket") + 1;
        return socket > 0 && socket < args.size() && args.get(socket).contains("/.vmm-pool/") && Files.exists(Path.of(args.get(socket)));
    }

    /** Descendants of this JVM that are virtiofsd or a CHV (stand-in) process. */
    static List<String> leakedChildren() {
        return leakedChildrenBesides(Set.of());
    }

    /**
     * {@link #leakedChildren} but for the processes {@code owned} and their own children (virtiofsd's sandbox), and
     * the idle members of a daemon's VMM pool (whose API socket is still in the pool: a claimed one's moved away).
     */
    static List<String> leakedChildrenBesides(Set<Long> owned) {
        return ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .filter(p -> !owned.contains(p.pid()) && p.parent().map(parent -> !owned.contains(parent.pid())).orElse(true))
                .filter(p -> !isIdlePoolMember(p))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?"))
                .filter(line -> line.contains("virtiofsd") || line.contains("ChvStandIn") || line.contains("cloud-hypervisor"))
                .toList();
    }
}
