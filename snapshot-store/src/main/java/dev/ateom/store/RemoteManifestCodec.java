package dev.ateom.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.SnapshotLayout;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and writes remote manifests. Like the local codec it refuses newer formats and unknown fields, and it
 * checks that the pieces of every file tile it exactly, so a pull never writes outside a file or leaves a gap.
 */
final class RemoteManifestCodec {
    /** No chunk is larger (FastCDC max 4 MiB, memory 2 MiB); a bigger length in a manifest is refused before any allocation. */
    static final long MAX_CHUNK_LENGTH = FastCdc.MAX_SIZE;

    static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private RemoteManifestCodec() {
    }

    static byte[] toBytes(RemoteManifest manifest) {
        try {
            return JSON.writeValueAsBytes(manifest);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("remote manifest of " + manifest.snapshotId() + " cannot be written as JSON", e);
        }
    }

    static JsonNode localToTree(Manifest local) {
        return JSON.valueToTree(local);
    }

    /** The local manifest a remote one carries, checked the way the snapshot module checks its own. */
    static Manifest local(RemoteManifest manifest) throws RemoteFormatException {
        try {
            return JSON.treeToValue(manifest.local(), Manifest.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new RemoteFormatException("remote manifest of " + manifest.snapshotId() + ": its local manifest is invalid: "
                    + e.getMessage(), e);
        }
    }

    static RemoteManifest read(String snapshotId, byte[] bytes) throws RemoteFormatException {
        String what = "remote manifest of " + snapshotId;
        JsonNode tree;
        try {
            tree = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new RemoteFormatException(what + " is not valid JSON: " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject() || !tree.path("formatVersion").canConvertToInt()) {
            throw new RemoteFormatException(what + " is not a JSON object with an integer formatVersion");
        }
        int version = tree.get("formatVersion").intValue();
        if (version > RemoteManifest.FORMAT_VERSION) {
            throw new RemoteFormatException(what + " has formatVersion " + version + ", newer than this ateom reads ("
                    + RemoteManifest.FORMAT_VERSION + "): upgrade ateom to use it");
        }
        if (version < 1) {
            throw new RemoteFormatException(what + " has an invalid formatVersion " + version);
        }
        RemoteManifest manifest;
        try {
            manifest = JSON.treeToValue(tree, RemoteManifest.class);
        } catch (UnrecognizedPropertyException e) {
            throw new RemoteFormatException(what + ": field '" + e.getPropertyName() + "' is unknown to remote format "
                    + RemoteManifest.FORMAT_VERSION + " (written by a newer ateom?)", e);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new RemoteFormatException(what + " is not a valid remote manifest: " + e.getMessage(), e);
        }
        validate(snapshotId, manifest);
        return manifest;
    }

    private static void validate(String snapshotId, RemoteManifest manifest) throws RemoteFormatException {
        String what = "remote manifest of " + snapshotId;
        if (!manifest.snapshotId().equals(snapshotId)) {
            throw new RemoteFormatException(what + " names snapshot " + manifest.snapshotId());
        }
        Manifest local = local(manifest);
        if (!local.snapshotId().equals(snapshotId)) {
            throw new RemoteFormatException(what + " carries the local manifest of " + local.snapshotId());
        }
        Set<String> paths = new HashSet<>();
        for (RemoteFile file : manifest.files()) {
            if (!SnapshotLayout.CONTENT_FILES.contains(file.path()) || !paths.add(file.path())) {
                throw new RemoteFormatException(what + " lists file '" + file.path() + "' (unexpected or twice)");
            }
            long size = local.file(file.path()).map(Manifest.FileEntry::size).orElse(-1L);
            if (size != file.size()) {
                throw new RemoteFormatException(what + ": " + file.path() + " is " + file.size() + " bytes, its local manifest says " + size);
            }
            requireTiling(what, file);
        }
        if (!paths.containsAll(SnapshotLayout.CONTENT_FILES)) {
            throw new RemoteFormatException(what + " lacks some of " + SnapshotLayout.CONTENT_FILES);
        }
    }

    private static void requireTiling(String what, RemoteFile file) throws RemoteFormatException {
        long position = 0;
        List<ChunkRef> chunks = file.chunks();
        for (ChunkRef chunk : chunks) {
            boolean hole = chunk.isHole();
            if (chunk.offset() != position || chunk.length() <= 0 || hole == (chunk.sha256() != null)
                    || (!hole && (chunk.length() > MAX_CHUNK_LENGTH || !ChunkHash.isValid(chunk.sha256())))
                    || (hole && !file.path().equals(SnapshotLayout.MEMORY_RANGES))) {
                throw new RemoteFormatException(what + ": " + file.path() + " has an invalid piece at offset " + chunk.offset()
                        + " (pieces must tile the file, each a chunk of at most " + MAX_CHUNK_LENGTH + " bytes or a hole in memory-ranges)");
            }
            position = chunk.end();
        }
        if (position != file.size()) {
            throw new RemoteFormatException(what + ": the pieces of " + file.path() + " end at " + position + ", not at its size " + file.size());
        }
    }
}
