package dev.ateom.store;

/** Bytes cut from a file: {@code data[0, length)} is the file's content at {@code offset}; the array belongs to the receiver. */
record PlainChunk(long offset, byte[] data, int length) {
}
