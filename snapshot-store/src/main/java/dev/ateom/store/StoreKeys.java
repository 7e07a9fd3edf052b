package dev.ateom.store;

/** The object keys of the remote format (below the location's prefix); see snapshot-store/README.md. */
final class StoreKeys {
    static final String CHUNKS = "chunks/";
    static final String SNAPSHOTS = "snapshots/";
    static final String MANIFEST = "/manifest.json";
    static final String LEASES = "leases/";
    static final String PROBES = "probes/";
    static final String VERDICT = "lease-verdict/";
    static final String HONOURED = "honoured";
    static final String NOT_HONOURED = "not-honoured-";

    private final StoreLocation location;

    StoreKeys(StoreLocation location) {
        this.location = location;
    }

    String chunk(ChunkHash hash) {
        return location.key(CHUNKS + hash.hex());
    }

    String chunksPrefix() {
        return location.key(CHUNKS);
    }

    String manifest(String snapshotId) {
        return location.key(SNAPSHOTS + snapshotId + MANIFEST);
    }

    String snapshotsPrefix() {
        return location.key(SNAPSHOTS);
    }

    String lease(String sandboxId) {
        return location.key(LEASES + sandboxId);
    }

    String verdictPrefix() {
        return location.key(VERDICT);
    }

    /** The one HONOURED verdict, created with If-None-Match: * by the first host that found conditional writes honoured. */
    String honouredVerdict() {
        return location.key(VERDICT + HONOURED);
    }

    /** A not-honoured finding of one host: a key of its own, so no other host's write can replace it. */
    String notHonouredVerdict(String hostId, String unique) {
        return location.key(VERDICT + NOT_HONOURED + hostId + "-" + unique);
    }

    boolean isNotHonouredVerdict(String key) {
        return key.startsWith(location.key(VERDICT + NOT_HONOURED));
    }

    String probe(String name) {
        return location.key(PROBES + name);
    }

    /** The snapshot id of a manifest key, or null for any other key under snapshots/. */
    String snapshotIdOf(String manifestKey) {
        String prefix = snapshotsPrefix();
        if (!manifestKey.startsWith(prefix) || !manifestKey.endsWith(MANIFEST)) {
            return null;
        }
        String id = manifestKey.substring(prefix.length(), manifestKey.length() - MANIFEST.length());
        return id.isEmpty() || id.contains("/") ? null : id;
    }

    /** The chunk hash of a key under chunks/, or null for a key that is not a chunk. */
    ChunkHash chunkOf(String key) {
        String prefix = chunksPrefix();
        if (!key.startsWith(prefix)) {
            return null;
        }
        String name = key.substring(prefix.length());
        return ChunkHash.isValid(name) ? new ChunkHash(name) : null;
    }

    StoreLocation location() {
        return location;
    }
}
