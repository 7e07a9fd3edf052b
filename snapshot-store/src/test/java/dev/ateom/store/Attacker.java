package dev.ateom.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HexFormat;

/**
 * Someone else who can write to the bucket: starts from a snapshot a host pushed and rewrites its remote manifest (and
 * plants chunks) over S3, keeping everything else consistent, so that each test's one lie is what the pull meets.
 */
final class Attacker {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestBucket bucket;
    private final String snapshotId;
    private final ObjectNode manifest;

    Attacker(TestBucket bucket, String snapshotId) throws IOException {
        this.bucket = bucket;
        this.snapshotId = snapshotId;
        this.manifest = (ObjectNode) JSON.readTree(bucket.get(manifestKey()));
    }

    ObjectNode manifest() {
        return manifest;
    }

    /** The remote entry of {@code path} in {@code files}. */
    ObjectNode remoteFile(String path) {
        for (JsonNode file : manifest.get("files")) {
            if (file.get("path").asText().equals(path)) {
                return (ObjectNode) file;
            }
        }
        throw new IllegalArgumentException(path + " is not in the manifest");
    }

    /** The local manifest's entry of {@code path}. */
    ObjectNode localFile(String path) {
        for (JsonNode file : manifest.get("local").get("files")) {
            if (file.get("path").asText().equals(path)) {
                return (ObjectNode) file;
            }
        }
        throw new IllegalArgumentException(path + " is not in the local manifest");
    }

    /** Gives {@code path} this size in both manifests (the remote pieces are the caller's business). */
    Attacker size(String path, long size) {
        remoteFile(path).put("size", size);
        localFile(path).put("size", size);
        return this;
    }

    /** Replaces the pieces of {@code path} (remote manifest). */
    ArrayNode pieces(String path) {
        return remoteFile(path).putArray("chunks");
    }

    static ObjectNode piece(ArrayNode pieces, long offset, long length, String sha256) {
        ObjectNode piece = pieces.addObject().put("offset", offset).put("length", length);
        return sha256 == null ? piece.put("hole", true) : piece.put("sha256", sha256);
    }

    /**
     * Makes {@code content} the whole of {@code path}: one planted chunk (at most 4 MiB), its size and sha256 in the local
     * manifest as a host would have written them, so only what the content itself is can fail the pull.
     */
    Attacker replace(String path, byte[] content) {
        String sha = plant(content, ChunkCodec.compress(content, content.length));
        size(path, content.length);
        piece(pieces(path), 0, content.length, sha);
        localFile(path).put("sha256", HexFormat.of().formatHex(ChunkHash.sha256().digest(content)));
        return this;
    }

    /** Stores {@code frame} as the chunk of {@code plain} (which it may not be: a test's lie); returns its name. */
    String plant(byte[] plain, byte[] frame) {
        String sha = HexFormat.of().formatHex(ChunkHash.sha256().digest(plain));
        bucket.put("chunks/" + sha, frame);
        return sha;
    }

    /** Writes the rewritten manifest over the pushed one. */
    void publish() throws IOException {
        bucket.put(manifestKey(), JSON.writeValueAsBytes(manifest));
    }

    private String manifestKey() {
        return "snapshots/" + snapshotId + "/manifest.json";
    }
}
