package dev.ateom.microvm.cli;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The CLI's one {@link ObjectMapper}, unconfigured: every command reads and writes plain JSON trees with it. One,
 * because a mapper's construction is a good part of a short JVM's start (Jackson's classes loaded and its caches
 * made), and a call made two to four of them.
 */
final class CliJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private CliJson() {}
}
