package dev.ateom.snapshot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.channels.Channels;
import java.io.InputStream;
import java.nio.file.Path;

/** Reads and writes manifest.json; refuses newer formats and unknown fields instead of ignoring them. */
public final class ManifestCodec {
    private static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private ManifestCodec() {
    }

    public static byte[] toBytes(Manifest manifest) {
        try {
            return JSON.writeValueAsBytes(manifest);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("manifest of " + manifest.snapshotId() + " cannot be written as JSON", e);
        }
    }

    public static Manifest read(Path file) throws IOException {
        return parse(file, bytesOf(file));
    }

    /** The manifest file's bytes, read as {@link #read} reads them (a regular file, no symlink followed). */
    static byte[] bytesOf(Path file) throws IOException {
        try (InputStream in = Channels.newInputStream(SafeOpen.regularFile(file))) {
            return in.readAllBytes();
        }
    }

    /** The manifest in {@code bytes}, read from {@code file} (named in the errors). */
    static Manifest parse(Path file, byte[] bytes) throws IOException {
        JsonNode tree;
        try {
            tree = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new SnapshotFormatException(file + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new SnapshotFormatException(file + " is not a JSON object");
        }
        JsonNode version = tree.get("formatVersion");
        if (version == null || !version.canConvertToInt()) {
            throw new SnapshotFormatException(file + " has no integer formatVersion");
        }
        if (version.intValue() > Manifest.FORMAT_VERSION) {
            throw new SnapshotFormatException(file + " has formatVersion " + version.intValue()
                    + ", newer than this ateom reads (" + Manifest.FORMAT_VERSION + "): upgrade ateom to use this snapshot");
        }
        if (version.intValue() < 1) {
            throw new SnapshotFormatException(file + " has an invalid formatVersion " + version.intValue());
        }
        try {
            return JSON.treeToValue(tree, Manifest.class);
        } catch (UnrecognizedPropertyException e) {
            throw new SnapshotFormatException(file + ": field '" + e.getPropertyName() + "' at " + e.getPathReference()
                    + " is unknown to manifest format " + Manifest.FORMAT_VERSION + " (written by a newer ateom?)", e);
        } catch (JsonProcessingException e) {
            throw new SnapshotFormatException(file + " is not a valid manifest: " + e.getOriginalMessage(), e);
        }
    }
}
