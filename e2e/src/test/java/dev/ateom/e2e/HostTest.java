package dev.ateom.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test with its own {@link TestHost} per method: closed after each (stopping daemons, failing on any process
 * left under its root), and after the class no live child of the test JVM may remain.
 */
abstract class HostTest {
    @TempDir Path dir;
    TestHost host;

    @BeforeEach
    void host() { host = new TestHost(dir); }

    @AfterEach
    void nothingLeft() throws Exception { host.close(); }

    @AfterAll
    static void noChildren() { assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)).isEmpty(); }
}
