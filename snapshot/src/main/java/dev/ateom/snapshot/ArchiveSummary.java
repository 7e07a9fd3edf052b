package dev.ateom.snapshot;

/**
 * What an archive run handled: entries written or read (directories, files, links), bytes of file
 * content (sparse files count their data only), and files skipped because tar cannot carry them
 * safely (fifos, sockets, device nodes).
 */
public record ArchiveSummary(long entries, long contentBytes, long skipped) {
}
