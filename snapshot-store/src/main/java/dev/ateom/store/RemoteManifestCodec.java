package dev.ateom.store;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
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
    /**
     * The most a manifest object may be: about 600,000 pieces (some 110 bytes each), over 700 GiB of 1.2 MiB durable
     * chunks or 1.2 TiB of 2 MiB memory pieces; a larger one is refused before its body is read.
     */
    static final long MAX_MANIFEST_BYTES = 64L << 20;
    /** No file of a snapshot is larger (a PiB); a manifest claiming more is refused, so sizes never overflow a sum. */
    static final long MAX_FILE_BYTES = 1L << 50;

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
        int version = formatVersion(what, bytes);
        if (version > RemoteManifest.FORMAT_VERSION) {
            throw new RemoteFormatException(what + " has formatVersion " + version + ", newer than this ateom reads ("
                    + RemoteManifest.FORMAT_VERSION + "): upgrade ateom to use it");
        }
        if (version < 1) {
            throw new RemoteFormatException(what + " has an invalid formatVersion " + version);
        }
        RemoteManifest manifest;
        try {
            manifest = JSON.readValue(bytes, RemoteManifest.class); // straight into records: no tree of a large manifest
        } catch (UnrecognizedPropertyException e) {
            throw new RemoteFormatException(what + ": field '" + e.getPropertyName() + "' is unknown to remote format "
                    + RemoteManifest.FORMAT_VERSION + " (written by a newer ateom?)", e);
        } catch (IOException | IllegalArgumentException e) {
            throw new RemoteFormatException(what + " is not a valid remote manifest: " + e.getMessage(), e);
        }
        validate(snapshotId, manifest);
        return manifest;
    }

    /** The top-level formatVersion, found by streaming over the other fields (before the fields a newer format may add are read). */
    private static int formatVersion(String what, byte[] bytes) throws RemoteFormatException {
        try (JsonParser parser = JSON.getFactory().createParser(bytes)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new RemoteFormatException(what + " is not a JSON object with an integer formatVersion");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("formatVersion")) {
                    if (value != JsonToken.VALUE_NUMBER_INT) {
                        break;
                    }
                    return parser.getIntValue();
                }
                parser.skipChildren();
            }
        } catch (IOException e) {
            throw new RemoteFormatException(what + " is not valid JSON: " + e.getMessage(), e);
        }
        throw new RemoteFormatException(what + " is not a JSON object with an integer formatVersion");
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
            if (file.size() < 0 || file.size() > MAX_FILE_BYTES) {
                throw new RemoteFormatException(what + ": " + file.path() + " claims " + file.size() + " bytes, outside 0-" + MAX_FILE_BYTES);
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
            if (chunk.offset() != position || chunk.length() <= 0 || chunk.length() > file.size() - position
                    || hole == (chunk.sha256() != null)
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
