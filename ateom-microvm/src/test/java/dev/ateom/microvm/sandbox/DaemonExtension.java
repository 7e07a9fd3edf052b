package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.config.ConfigOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One daemon shared by the tests of a class, on a temp dir of its own; the sole owner of its lifetime. It starts before
 * the class's {@code @BeforeAll} methods and is closed after its {@code @AfterAll} methods; then no VMM or virtiofsd may
 * be left (one that is fails the class) and the temp dir is deleted. Like WireMock's {@code WireMockExtension} the
 * extension is also what the tests talk to:
 * <pre>{@code
 * @RegisterExtension
 * static final DaemonExtension daemon = DaemonExtension.withFlags(Map.of(ConfigOption.VMM_POOL, "0"));
 *
 * @Test
 * void aTest() throws Exception { daemon.createOk(daemon.spec("a", "a")); }
 * }</pre>
 * A class that needs several daemons, or one restarted mid-test, uses {@link DaemonHarness} itself.
 */
final class DaemonExtension extends DaemonApi implements BeforeAllCallback, AfterAllCallback {
    /** Starts the daemon on its root dir (empty but for what the harness puts there). */
    @FunctionalInterface
    interface Starter {
        DaemonHarness start(Path root) throws Exception;
    }

    private final Starter starter;
    /** The class whose before-all started the daemon: a {@code @Nested} class's callbacks must neither restart nor close it. */
    private String owner;
    private Path root;
    private DaemonHarness harness;

    private DaemonExtension(Starter starter) { this.starter = starter; }

    /** A daemon with the harness's defaults and {@code flags} over them. */
    static DaemonExtension withFlags(Map<ConfigOption, String> flags) {
        return startedBy(root -> new DaemonHarness(root, flags));
    }

    /** A daemon {@code starter} makes on the root dir: for a fake probe, or flags that name files under the root. */
    static DaemonExtension startedBy(Starter starter) { return new DaemonExtension(starter); }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (owner != null) return;
        owner = context.getUniqueId();
        root = Files.createTempDirectory("ateom");
        harness = starter.start(root);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!context.getUniqueId().equals(owner)) return;
        try {
            if (harness != null) harness.close();
        } finally {
            try {
                assertThat(TestTools.leakedChildren()).as("processes left behind").isEmpty();
            } finally {
                delete(root);
                owner = null;
                root = null;
                harness = null;
            }
        }
    }

    /** The running daemon's harness: for what takes a {@link DaemonHarness}, such as its {@link dev.ateom.microvm.Daemon}. */
    DaemonHarness harness() {
        if (harness == null) throw new IllegalStateException("the daemon runs only between before-all and after-all of its class");
        return harness;
    }

    @Override
    Path root() { return harness().root; }

    @Override
    int port() { return harness().port(); }

    @Override
    String token() { return harness().token; }

    private static void delete(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) return;
        List<Path> deepestFirst;
        try (Stream<Path> paths = Files.walk(dir)) {
            deepestFirst = paths.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : deepestFirst) Files.deleteIfExists(path);
    }
}
