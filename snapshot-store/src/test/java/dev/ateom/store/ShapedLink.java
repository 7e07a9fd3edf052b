package dev.ateom.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A test host behind a link of a given bandwidth, shaped by the kernel: a network namespace with one end of a veth
 * pair, the other end in this (the client's) namespace, a private /30 between them (from 198.18.0.0/15, the range set
 * aside for benchmarks) and a token bucket filter ({@code tc qdisc ... tbf}) on the egress of both ends, so both
 * directions run at {@code mbit}. A server started in {@link #namespace()} on {@link #serverAddress()} is reached
 * only over that link. {@link #close()} deletes the veth and the namespace. Needs root, {@code ip} and {@code tc}.
 */
final class ShapedLink implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String namespace;
    private final String hostEnd;
    private final int subnet;
    private final int mbit;

    private ShapedLink(String namespace, String hostEnd, int subnet, int mbit) {
        this.namespace = namespace;
        this.hostEnd = hostEnd;
        this.subnet = subnet;
        this.mbit = mbit;
    }

    /** Sets it all up, or removes what it made and throws (the caller reports why shaping is not available). */
    static ShapedLink create(int mbit) throws IOException {
        String id = Integer.toString(RANDOM.nextInt(1 << 20), 36);
        int subnet = RANDOM.nextInt(1 << 14); // which /30 of 198.18.0.0/16
        ShapedLink link = new ShapedLink("atbench-" + id, "atbh" + id, subnet, mbit);
        try {
            link.setUp();
            return link;
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
    }

    private void setUp() throws IOException {
        String nsEnd = "atbn" + hostEnd.substring(4);
        run("ip", "netns", "add", namespace);
        run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", nsEnd);
        run("ip", "link", "set", nsEnd, "netns", namespace);
        run("ip", "addr", "add", address(1) + "/30", "dev", hostEnd);
        run("ip", "link", "set", hostEnd, "up");
        inNamespace("ip", "addr", "add", address(2) + "/30", "dev", nsEnd);
        inNamespace("ip", "link", "set", nsEnd, "up");
        inNamespace("ip", "link", "set", "lo", "up");
        run(shape(hostEnd));
        List<String> nsShape = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        nsShape.addAll(shape(nsEnd));
        run(nsShape);
    }

    /**
     * Token bucket at {@code mbit} on the device's egress. The bucket holds 4 ms of the rate (at least 64 KiB: a
     * veth hands over up to 64 KiB segments), the queue up to 20 ms of waiting before it drops, as a real link's.
     */
    private List<String> shape(String device) {
        long bytesPerSecond = mbit * 1_000_000L / 8;
        long burst = Math.max(64 * 1024, bytesPerSecond / 250);
        return List.of("tc", "qdisc", "add", "dev", device, "root", "tbf", "rate", mbit + "mbit", "burst", Long.toString(burst),
                "latency", "20ms");
    }

    String namespace() {
        return namespace;
    }

    /** Where a server in the namespace listens. */
    String serverAddress() {
        return address(2);
    }

    int mbit() {
        return mbit;
    }

    /** Both ends' qdisc statistics (bytes sent, drops, overlimits): proof the link shaped what went over it. */
    String statistics() throws IOException {
        return run("tc", "-s", "qdisc", "show", "dev", hostEnd).trim() + "\n"
                + run("ip", "netns", "exec", namespace, "tc", "-s", "qdisc", "show", "dev", "atbn" + hostEnd.substring(4)).trim();
    }

    private String address(int host) {
        return String.format(Locale.ROOT, "198.18.%d.%d", subnet / 64, (subnet % 64) * 4 + host);
    }

    /** Deleting one end of a veth deletes both; the namespace goes once no process is left in it. */
    @Override
    public void close() {
        runQuietly("ip", "link", "del", hostEnd);
        runQuietly("ip", "netns", "del", namespace);
    }

    private void inNamespace(String... command) throws IOException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(List.of(command));
        run(full);
    }

    private static String run(String... command) throws IOException {
        return run(List.of(command));
    }

    private static String run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + output.trim());
            }
            return output;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }

    private static void runQuietly(String... command) {
        try {
            run(command);
        } catch (IOException alreadyGone) {
            // nothing to remove, or it went with the other end
        }
    }
}
