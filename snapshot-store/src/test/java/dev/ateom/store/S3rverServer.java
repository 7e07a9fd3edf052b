package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * s3rver (npm, installed by scripts/setup.sh into {@code $ATEOM_NODE_MODULES}) run by {@code $ATEOM_NODE} on a free
 * loopback port, its objects in a directory of its own (kept across a restart). It checks SigV4 signatures against
 * its one built-in key pair, S3RVER/S3RVER, and nothing of the body: it stores what it receives, framing included.
 */
public final class S3rverServer extends ChildS3Server {
    private static final String KEY = "S3RVER";

    private S3rverServer(Path directory, int port) {
        super(directory, port, "127.0.0.1");
    }

    public static S3rverServer start(Path workDir) throws IOException {
        return started(new S3rverServer(newDirectory(workDir, "s3rver", "data"), freePort()));
    }

    @Override
    public S3ServerKind kind() {
        return S3ServerKind.S3RVER;
    }

    @Override
    public String accessKeyId() {
        return KEY;
    }

    @Override
    public String secretAccessKey() {
        return KEY;
    }

    @Override
    String describe() {
        return "s3rver";
    }

    @Override
    List<String> command() {
        String modules = System.getenv("ATEOM_NODE_MODULES");
        if (modules == null || !Files.isRegularFile(Path.of(modules, "s3rver", "bin", "s3rver.js"))) {
            throw new IllegalStateException("s3rver is not installed: ATEOM_NODE_MODULES (" + modules + ") has no s3rver/bin/s3rver.js; "
                    + "run scripts/setup.sh and source .tools/env.sh");
        }
        String node = System.getenv().getOrDefault("ATEOM_NODE", "node");
        return List.of(node, Path.of(modules, "s3rver", "bin", "s3rver.js").toString(), "--silent",
                "--directory", directory().resolve("data").toString(), "--address", host(), "--port", Integer.toString(port()),
                "--no-vhost-buckets");
    }
}
