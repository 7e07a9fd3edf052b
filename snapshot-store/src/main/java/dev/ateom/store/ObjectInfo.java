package dev.ateom.store;

import java.time.Instant;

/** An object in the store: key, size in bytes, when it was last written. */
record ObjectInfo(String key, long size, Instant lastModified) {
}
