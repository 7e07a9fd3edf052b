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

/**
 * A test S3 server run as a child process on a port of its own (loopback unless a test host's address is given), its
 * data and log in one directory. Started, killed (an outage) and started again on the same port and data; the process
 * dies with the test JVM (shutdown hook). Subclasses say how to launch it.
 */
abstract class ChildS3Server implements TestS3Server {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path directory;
    private final int port;
    private final String host;
    private Process process;

    ChildS3Server(Path directory, int port, String host) {
        this.directory = directory;
        this.port = port;
        this.host = host;
    }

    /** The command line that starts the server on {@link #host()}:{@link #port()} with its data below {@link #directory()}. */
    abstract List<String> command() throws IOException;

    /** What the server is, for messages (name and version). */
    abstract String describe();

    Path directory() {
        return directory;
    }

    String host() {
        return host;
    }

    public int port() {
        return port;
    }

    @Override
    public URI endpoint() {
        return URI.create("http://" + host + ":" + port);
    }

    /** CPU the server process has used so far (the benchmark charges each operation what it cost the server). */
    Duration cpuTime() {
        return process == null ? Duration.ZERO : process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** A fresh directory for a server below {@code workDir}, with its (empty) data dir {@code data} in it. */
    static Path newDirectory(Path workDir, String name, String data) throws IOException {
        Path directory = Files.createTempDirectory(workDir, name + "-");
        Files.createDirectories(directory.resolve(data));
        return directory;
    }

    /** Starts {@code server} and returns it once it listens. */
    static <S extends ChildS3Server> S started(S server) throws IOException {
        server.startProcess();
        return server;
    }

    final void startProcess() throws IOException {
        process = new ProcessBuilder(new ArrayList<>(command()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("server.log").toFile()))
                .start();
        Process started = process;
        Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
        awaitListening();
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(describe() + " exited with " + process.exitValue() + "; see " + directory.resolve("server.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 200);
                return;
            } catch (IOException notYet) {
                sleep(100);
            }
        }
        stop();
        throw new IOException(describe() + " did not listen on port " + port + " within " + START_TIMEOUT);
    }

    /** Whether an outage is played with SIGTERM (the server shuts down on its own) rather than SIGKILL. */
    boolean stopsGracefully() {
        return false;
    }

    @Override
    public void stop() {
        if (process == null) {
            return;
        }
        if (!process.isAlive()) {
            // it died on its own: whatever failed after that was refused a connection; its log says why it died
            System.err.println(describe() + " (pid " + process.pid() + ") had exited on its own with " + process.exitValue()
                    + "; the end of its log:\n" + logTail());
        }
        try {
            if (stopsGracefully()) {
                process.destroy();
                process.waitFor(15, TimeUnit.SECONDS);
            }
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(describe() + " (pid " + process.pid() + ") did not die within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + describe(), e);
        }
        process = null;
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(directory.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void restart() throws IOException {
        stop();
        startProcess();
    }

    @Override
    public void close() {
        stop();
        deleteTree(directory);
    }

    @Override
    public String toString() {
        return describe() + " at " + endpoint();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The JVM running the tests, for servers that are Java programs. */
    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
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
