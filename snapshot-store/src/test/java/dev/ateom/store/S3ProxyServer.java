package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * s3proxy with its filesystem backend, as a child process on a free loopback port, from the self-contained jar the
 * build copied into target/s3proxy. It checks SigV4 signatures against {@link #IDENTITY}/{@link #CREDENTIAL}.
 */
public final class S3ProxyServer extends ChildS3Server {
    public static final String IDENTITY = "ateom-test";
    public static final String CREDENTIAL = "ateom-test-secret";
    public static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(AwsBasicCredentials.create(IDENTITY, CREDENTIAL));

    private final String version;
    private final List<String> launcher;

    private S3ProxyServer(String version, Path directory, int port, String host, List<String> launcher) {
        super(directory, port, host);
        this.version = version;
        this.launcher = launcher;
    }

    /** The version the build names (the newest that resolved), in a fresh dir below {@code workDir}. */
    public static S3ProxyServer start(Path workDir) throws IOException {
        return start(System.getProperty("ateom.s3proxy.version", "2.9.0"), workDir);
    }

    static S3ProxyServer start(String version, Path workDir) throws IOException {
        return start(version, workDir, "127.0.0.1", List.of());
    }

    /**
     * The default version in network namespace {@code namespace}, listening on {@code address} there (the benchmark's
     * store behind a shaped link, {@link ShapedLink}); started with {@code ip netns exec}, which execs the JVM, so
     * {@link #cpuTime()} is still s3proxy's own.
     */
    static S3ProxyServer startIn(Path workDir, String namespace, String address) throws IOException {
        return start(System.getProperty("ateom.s3proxy.version", "2.9.0"), workDir, address, List.of("ip", "netns", "exec", namespace));
    }

    private static S3ProxyServer start(String version, Path workDir, String host, List<String> launcher) throws IOException {
        return started(new S3ProxyServer(version, newDirectory(workDir, "s3proxy-" + version, "data"), freePort(), host, launcher));
    }

    @Override
    public S3ServerKind kind() {
        return S3ServerKind.S3PROXY;
    }

    @Override
    public String accessKeyId() {
        return IDENTITY;
    }

    @Override
    public String secretAccessKey() {
        return CREDENTIAL;
    }

    String version() {
        return version;
    }

    /** Where the filesystem backend keeps objects: {@code data/<bucket>/<key>}. */
    public Path dataDirectory() {
        return directory().resolve("data");
    }

    @Override
    String describe() {
        return "s3proxy " + version;
    }

    @Override
    List<String> command() throws IOException {
        Path jar = Path.of(System.getProperty("ateom.s3proxy.dir", "target/s3proxy")).resolve("s3proxy-" + version + "-jar-with-dependencies.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the build copies it (mvn -pl snapshot-store generate-test-resources)");
        }
        Path properties = directory().resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=" + endpoint(),
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + IDENTITY,
                "s3proxy.credential=" + CREDENTIAL,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + dataDirectory(),
                ""));
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(java(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(), "--properties", properties.toString()));
        return command;
    }
}
