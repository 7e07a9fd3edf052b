package dev.ateom.microvm.systeminfo.volume;

import java.nio.file.Path;

/** Where the bytes of a volume file come from; host files are streamed, never held in memory. */
public sealed interface FileContent {

    /** Small generated content, such as an identity field. */
    record Bytes(byte[] data) implements FileContent {}

    /**
     * A regular file on the host, opened without following symlinks when copied.
     * Reading more than {@code maxBytes} is an error (the file grew past the limit since it was listed).
     */
    record HostFile(Path path, long maxBytes) implements FileContent {}
}
