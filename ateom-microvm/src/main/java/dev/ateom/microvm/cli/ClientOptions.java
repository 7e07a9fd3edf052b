package dev.ateom.microvm.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Options every client subcommand shares: where the daemon is, how to authenticate, how to print. */
public final class ClientOptions {
    @Option(names = "--url", paramLabel = "<url>", defaultValue = "${env:ATEOM_URL:-http://127.0.0.1:8420}",
            description = "Daemon URL. Env ATEOM_URL. Default: ${DEFAULT-VALUE}")
    String url;

    @Option(names = "--token-file", paramLabel = "<file>", defaultValue = "${env:ATEOM_TOKEN_FILE:-/var/lib/ateom/api-token}",
            description = "Bearer token file of the daemon. Env ATEOM_TOKEN_FILE. Default: ${DEFAULT-VALUE}")
    Path tokenFile;

    @Option(names = {"-o", "--output"}, paramLabel = "<format>", defaultValue = "table",
            description = "table (for people) or json (for scripts). Default: ${DEFAULT-VALUE}")
    OutputFormat output;

    public enum OutputFormat { table, json }
}
