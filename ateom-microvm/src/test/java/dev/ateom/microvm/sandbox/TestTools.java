package dev.ateom.microvm.sandbox;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

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

    /** The Unix sockets under {@code dir} (none when it does not exist). */
    static Set<Path> sockets(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return Set.of();
        Set<Path> sockets = new HashSet<>();
        // the daemon may be removing files below (a run dir made ahead being dropped): one gone meanwhile is not there
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (file.getFileName().toString().endsWith(".sock")) sockets.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                throw e;
            }
        });
        return sockets;
    }

    /** The pids of a sandbox runtime's virtiofsd, as its answer names them. */
    static Set<Long> sharePids(JsonNode runtime) {
        Set<Long> pids = new HashSet<>();
        runtime.path("shares").forEach(share -> pids.add(share.path("pid").asLong()));
        return pids;
    }

    /** The processes a sandbox runtime names: its virtiofsd and its CHV. */
    static Set<Long> processesOf(JsonNode runtime) {
        Set<Long> pids = sharePids(runtime);
        pids.add(runtime.path("chvPid").asLong());
        return pids;
    }

    /**
     * The virtiofsd serving three sockets in {@code epochDir} (started ahead of a resume), once each has forked the
     * child that serves after it listens: six processes. Bounded, since a start of three takes well under a second
     * even on a loaded host.
     */
    static Set<Long> awaitThreeSharesServing(Path epochDir) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (sockets(epochDir).size() < 3 || processesMentioning(epochDir).size() < 6) {
            assertThat(System.nanoTime()).as("three virtiofsd serving in %s within 60 s", epochDir).isLessThan(deadline);
            Thread.sleep(5);
        }
        return processesMentioning(epochDir);
    }

    /** Live descendants of this JVM whose command line names a path under {@code dir} (and their sandbox children). */
    static Set<Long> processesMentioning(Path dir) {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(dir + "/"))
                .map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
