package dev.ateom.microvm.remote;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ProcessKill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.lang.System.Logger.Level.WARNING;

/**
 * This host's CHV version as snapshot manifests record it ({@code 54.0.0}), from {@code cloud-hypervisor --version}
 * ({@code cloud-hypervisor v54.0.0}); asked once, at the first pull, so a daemon that never pulls never runs it.
 */
final class HypervisorVersion {
    private static final System.Logger LOG = System.getLogger(HypervisorVersion.class.getName());
    private static final Pattern VERSION = Pattern.compile("v?(\\d+\\.\\d+(?:\\.\\d+)?)");

    private final Optional<Path> binary;
    private Optional<String> version;

    HypervisorVersion(Optional<Path> binary) { this.binary = binary; }

    /** Empty when there is no CHV or it does not say: then pulls do not compare versions (and say so in the log). */
    synchronized Optional<String> get() {
        if (version == null) version = binary.flatMap(HypervisorVersion::ask);
        return version;
    }

    private static Optional<String> ask(Path chv) {
        try {
            Process process = ChildLauncher.start(new ProcessBuilder(List.of(chv.toString(), "--version")).redirectErrorStream(true), false);
            String output;
            try (var in = process.getInputStream()) {
                output = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                ProcessKill.killTree(process, Duration.ofSeconds(10));
                throw new IOException("no answer within 30 s");
            }
            Optional<String> parsed = parse(output);
            if (parsed.isEmpty()) LOG.log(WARNING, chv + " --version printed no version: '" + output.strip() + "'");
            return parsed;
        } catch (IOException e) {
            LOG.log(WARNING, "cannot ask " + chv + " for its version (" + e.getMessage() + "); pulls will not compare CHV versions");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    static Optional<String> parse(String output) {
        Matcher m = VERSION.matcher(output);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
