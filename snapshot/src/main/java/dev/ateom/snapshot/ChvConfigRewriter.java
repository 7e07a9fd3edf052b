package dev.ateom.snapshot;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.channels.Channels;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Points a CHV snapshot's {@code config.json} at a restored VM's new sockets and files. Works on the
 * JSON tree, so every field this code does not know (and every number, exactly) stays as CHV wrote
 * it; only {@code fs[].socket} (matched by tag), {@code vsock.socket} and the serial/console
 * {@code file} or {@code socket} their mode uses are replaced.
 */
public final class ChvConfigRewriter {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

    private ChvConfigRewriter() {
    }

    /** Reads {@code source}, rewrites it and writes {@code target} atomically (they may be the same file). */
    public static void rewrite(Path source, Path target, RestoreSockets sockets) throws IOException {
        ObjectNode config = read(source);
        rewrite(config, sockets, source);
        AtomicFile.write(target, JSON.writeValueAsBytes(config));
    }

    /**
     * Rewrites a config already read (and checked: the file is not read again) and writes it as the new file
     * {@code target}, without fsync: for a file in a throw-away dir (a per-restore dir, which a crash removes whole),
     * where the two fsyncs of an atomic write would be the slowest part of a resume's rewrite step.
     */
    public static void rewriteToNewFile(ChvConfig source, Path target, RestoreSockets sockets) throws IOException {
        ObjectNode config = source.copy();
        rewrite(config, sockets, source.origin());
        Files.write(target, JSON.writeValueAsBytes(config), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    static ObjectNode read(Path file) throws IOException {
        JsonNode tree;
        try {
            try (InputStream in = Channels.newInputStream(SafeOpen.regularFile(file))) {
                tree = JSON.readTree(in);
            }
        } catch (IOException e) {
            throw new SnapshotFormatException(file + " is not valid JSON: " + e.getMessage(), e);
        }
        if (!(tree instanceof ObjectNode object)) {
            throw new SnapshotFormatException(file + " is not a JSON object");
        }
        return object;
    }

    static void rewrite(ObjectNode config, RestoreSockets sockets, Path origin) {
        rewriteFs(config, sockets, origin);
        rewriteVsock(config, sockets.vsockSocket(), origin);
        rewriteConsole(config, "serial", sockets.serialPath(), origin);
        rewriteConsole(config, "console", sockets.consolePath(), origin);
    }

    private static void rewriteFs(ObjectNode config, RestoreSockets sockets, Path origin) {
        JsonNode fs = config.get("fs");
        Set<String> seen = new HashSet<>();
        if (fs != null && !fs.isNull()) {
            if (!(fs instanceof ArrayNode entries)) {
                throw new SnapshotFormatException(origin + ": fs is not an array");
            }
            for (int i = 0; i < entries.size(); i++) {
                if (!(entries.get(i) instanceof ObjectNode entry) || !entry.path("tag").isTextual()) {
                    throw new SnapshotFormatException(origin + ": fs[" + i + "] has no tag");
                }
                String tag = entry.get("tag").asText();
                if (!seen.add(tag)) {
                    throw new SnapshotFormatException(origin + ": fs tag '" + tag + "' appears twice");
                }
                Path socket = sockets.fsSocketsByTag().get(tag);
                if (socket == null) {
                    throw new SnapshotFormatException(origin + ": fs[" + i + "] tag '" + tag + "' has no new socket (given: "
                            + new TreeSet<>(sockets.fsSocketsByTag().keySet()) + ")");
                }
                entry.put("socket", socket.toString());
            }
        }
        Set<String> extra = new TreeSet<>(sockets.fsSocketsByTag().keySet());
        extra.removeAll(seen);
        if (!extra.isEmpty()) {
            throw new SnapshotFormatException(origin + ": new sockets given for tags " + extra + " that the snapshot has no fs entry for");
        }
    }

    private static void rewriteVsock(ObjectNode config, Optional<Path> socket, Path origin) {
        JsonNode vsock = config.get("vsock");
        boolean present = vsock != null && !vsock.isNull();
        if (present && socket.isEmpty()) {
            throw new SnapshotFormatException(origin + ": the snapshot has a vsock device but no new vsock socket was given");
        }
        if (!present && socket.isPresent()) {
            throw new SnapshotFormatException(origin + ": a vsock socket was given but the snapshot has no vsock device");
        }
        if (present) {
            if (!(vsock instanceof ObjectNode object)) {
                throw new SnapshotFormatException(origin + ": vsock is not an object");
            }
            object.put("socket", socket.orElseThrow().toString());
        }
    }

    /** serial/console: mode File uses "file", Socket uses "socket"; Off/Null/Tty/Pty use no host path. */
    private static void rewriteConsole(ObjectNode config, String name, Optional<Path> path, Path origin) {
        JsonNode node = config.get(name);
        if (node == null || node.isNull()) {
            return;
        }
        if (!(node instanceof ObjectNode console)) {
            throw new SnapshotFormatException(origin + ": " + name + " is not an object");
        }
        String mode = console.path("mode").asText("");
        String field = switch (mode) {
            case "File" -> "file";
            case "Socket" -> "socket";
            default -> null;
        };
        if (field == null) {
            return;
        }
        if (path.isEmpty()) {
            throw new SnapshotFormatException(origin + ": " + name + ".mode is " + mode + " but no new " + name + " " + field + " was given");
        }
        console.put(field, path.orElseThrow().toString());
    }
}
