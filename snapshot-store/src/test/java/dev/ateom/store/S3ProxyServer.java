package dev.ateom.store;

import dev.ateom.snapshot.TreeDeleter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;

/**
 * A real S3 server for the tests: s3proxy with its filesystem backend, as a child process on a free loopback
 * port, from the self-contained jar the build copied into target/s3proxy. Stop and start it again on the same
 * port and data dir to play an outage.
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String IDENTITY = "ateom-test";
    public static final String CREDENTIAL = "ateom-test-secret";
    public static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(AwsBasicCredentials.create(IDENTITY, CREDENTIAL));
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final String version;
    private final Path directory;
    private final int port;
    private final String host;
    private final List<String> launcher;
    private Process process;

    private S3ProxyServer(String version, Path directory, int port) {
        this(version, directory, port, "127.0.0.1", List.of());
    }

    private S3ProxyServer(String version, Path directory, int port, String host, List<String> launcher) {
        this.version = version;
        this.directory = directory;
        this.port = port;
        this.host = host;
        this.launcher = launcher;
    }

    /** The version the build names (the newest that resolved), in a fresh dir below {@code workDir}. */
    public static S3ProxyServer start(Path workDir) throws IOException {
        return start(System.getProperty("ateom.s3proxy.version", "2.9.0"), workDir);
    }

    static S3ProxyServer start(String version, Path workDir) throws IOException {
        Path directory = Files.createTempDirectory(workDir, "s3proxy-" + version + "-");
        Files.createDirectories(directory.resolve("data"));
        S3ProxyServer server = new S3ProxyServer(version, directory, freePort());
        server.startProcess();
        return server;
    }

    /**
     * The default version in network namespace {@code namespace}, listening on {@code address} there (the benchmark's
     * store behind a shaped link, {@link ShapedLink}); started with {@code ip netns exec}, which execs the JVM, so
     * {@link #cpuTime()} is still s3proxy's own.
     */
    static S3ProxyServer startIn(Path workDir, String namespace, String address) throws IOException {
        String version = System.getProperty("ateom.s3proxy.version", "2.9.0");
        Path directory = Files.createTempDirectory(workDir, "s3proxy-" + version + "-");
        Files.createDirectories(directory.resolve("data"));
        S3ProxyServer server = new S3ProxyServer(version, directory, freePort(), address, List.of("ip", "netns", "exec", namespace));
        server.startProcess();
        return server;
    }

    public URI endpoint() {
        return URI.create("http://" + host + ":" + port);
    }

    public int port() {
        return port;
    }

    /** CPU the server process has used so far (the benchmark charges each operation what it cost the server). */
    Duration cpuTime() {
        return process == null ? Duration.ZERO : process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    String version() {
        return version;
    }

    /** Where the filesystem backend keeps objects: {@code data/<bucket>/<key>}. */
    public Path dataDirectory() {
        return directory.resolve("data");
    }

    /** Store settings for a bucket of this server, as an operator would give them: endpoint, path style, credentials. */
    StoreSettings settings(String bucket, String prefix) throws StoreConfigException {
        return StoreSettings.of(StoreLocation.parse("s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix)))
                .withEndpoint(endpoint().toString()).withRegion("us-east-1").withPathStyle(true).withCredentials(CREDENTIALS)
                .withParallelism(4);
    }

    public void createBucket(String bucket) {
        try (S3Client client = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).endpointOverride(endpoint())
                .region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(CREDENTIALS).build()) {
            client.createBucket(CreateBucketRequest.builder().bucket(bucket).build());
        }
    }

    /** Kills the server (as an outage would); {@link #restart()} brings it back on the same port and data. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("s3proxy (pid " + process.pid() + ") did not die within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping s3proxy", e);
        }
        process = null;
    }

    public void restart() throws IOException {
        stop();
        startProcess();
    }

    @Override
    public void close() {
        stop();
        deleteTree(directory);
    }

    private void startProcess() throws IOException {
        Path jar = Path.of(System.getProperty("ateom.s3proxy.dir", "target/s3proxy")).resolve("s3proxy-" + version + "-jar-with-dependencies.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the build copies it (mvn -pl snapshot-store generate-test-resources)");
        }
        Path properties = directory.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=" + endpoint(),
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + IDENTITY,
                "s3proxy.credential=" + CREDENTIAL,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + dataDirectory(),
                ""));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(), "--properties", properties.toString()));
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("s3proxy.log").toFile()))
                .start();
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
        awaitListening();
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("s3proxy " + version + " exited with " + process.exitValue() + "; see " + directory.resolve("s3proxy.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 200);
                return;
            } catch (IOException notYet) {
                sleep(100);
            }
        }
        stop();
        throw new IOException("s3proxy " + version + " did not listen on port " + port + " within " + START_TIMEOUT);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static void deleteTree(Path root) {
        try {
            TreeDeleter.delete(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
