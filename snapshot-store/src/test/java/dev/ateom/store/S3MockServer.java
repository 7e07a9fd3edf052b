package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Adobe S3Mock as a child process from its exec jar (copied by the build into target/s3mock), serving plain HTTP on its
 * main connector, bound to loopback. It accepts any credentials and keeps its objects below its root, which it reloads
 * when restarted on the same root (an outage). Caveat: S3Mock 4.11 always opens a second, plain-HTTP connector on
 * {@code com.adobe.testing.s3mock.httpPort} without a bind address (all interfaces); it gets a free port of its own
 * and the tests never use it, nothing can make it loopback-only from the command line. Its JVM's temp dir is one inside
 * the server's directory: S3Mock stages every upload in a temp file it does not always remove ({@code
 * ObjectService*toTempFile}, a few hundred per suite run) and its embedded Tomcat makes a {@code tomcat.*} dir there.
 */
public final class S3MockServer extends ChildS3Server {
    private final String version;

    private S3MockServer(String version, Path directory, int port) {
        super(directory, port, "127.0.0.1");
        this.version = version;
    }

    public static S3MockServer start(Path workDir) throws IOException {
        String version = System.getProperty("ateom.s3mock.version", "4.11.0");
        return started(new S3MockServer(version, newDirectory(workDir, "s3mock-" + version, "root"), freePort()));
    }

    @Override
    public S3ServerKind kind() {
        return S3ServerKind.S3MOCK;
    }

    @Override
    public String accessKeyId() {
        return "ateom-test";
    }

    @Override
    public String secretAccessKey() {
        return "ateom-test-secret";
    }

    /**
     * S3Mock killed (SIGKILL) in the middle of an upload leaves an object behind that makes every later listing of the
     * bucket fail (500) after a restart; stopped with SIGTERM it finishes what it was doing and stops.
     */
    @Override
    boolean stopsGracefully() {
        return true;
    }

    @Override
    String describe() {
        return "S3Mock " + version;
    }

    @Override
    List<String> command() throws IOException {
        Path jar = Path.of(System.getProperty("ateom.s3mock.dir", "target/s3mock")).resolve("s3mock-" + version + "-exec.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the build copies it (mvn -pl snapshot-store generate-test-resources)");
        }
        Path temp = Files.createDirectories(directory().resolve("tmp"));
        return List.of(java(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + temp, "-jar", jar.toString(),
                "--server.address=" + host(), "--server.port=" + port(), "--server.ssl.enabled=false",
                "--com.adobe.testing.s3mock.httpPort=" + freePort(),
                "--com.adobe.testing.s3mock.store.root=" + directory().resolve("root"),
                "--com.adobe.testing.s3mock.store.retainFilesOnExit=true",
                "--server.shutdown=graceful", "--spring.main.banner-mode=off");
    }
}
