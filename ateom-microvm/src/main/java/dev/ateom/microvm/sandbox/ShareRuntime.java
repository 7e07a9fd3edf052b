package dev.ateom.microvm.sandbox;

/** One running virtiofsd of a sandbox, as persisted so that a restarted daemon can adopt or clean it. */
public record ShareRuntime(String kind, String tag, long pid, String socket, String sharedDir, String log) {}
