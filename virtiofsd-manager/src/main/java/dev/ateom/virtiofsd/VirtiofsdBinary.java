package dev.ateom.virtiofsd;

import dev.ateom.process.ChildLauncher;
import dev.ateom.process.ProcessKill;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A virtiofsd executable whose version and flags were read from {@code --version} and {@code --help}.
 * Only {@link #probe(Path)} creates one, and it refuses binaries that lack a flag ateom uses.
 *
 * @param path    the executable
 * @param version as printed by {@code --version}, e.g. {@code 1.14.0}
 * @param flags   every long flag {@code --help} lists
 * @param help    the raw help text (values of flags are checked against it)
 */
public record VirtiofsdBinary(Path path, String version, Set<String> flags, String help) {

    /** The version ateom is developed and tested against. Others are accepted when they have every needed flag. */
    public static final String TESTED_VERSION = "1.14.0";

    private static final System.Logger LOG = System.getLogger(VirtiofsdBinary.class.getName());
    private static final Pattern VERSION = Pattern.compile("^virtiofsd (\\S+)", Pattern.MULTILINE);
    private static final Pattern FLAG = Pattern.compile("^\\s+(?:-\\w, )?(--[a-z0-9][a-z0-9-]*)", Pattern.MULTILINE);
    private static final long PROBE_TIMEOUT_SECONDS = 10;
    /** How long a killed probe run gets to be gone (it has usually exited already). */
    private static final Duration PROBE_KILL_WAIT = Duration.ofSeconds(10);

    public VirtiofsdBinary {
        flags = Set.copyOf(flags);
    }

    /** Runs the binary with {@code --version} and {@code --help}; throws {@link UnsupportedVirtiofsdException} naming what is missing. */
    public static VirtiofsdBinary probe(Path path) {
        Path binary = path.toAbsolutePath();
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new UnsupportedVirtiofsdException("virtiofsd binary " + binary + " does not exist or is not executable");
        }
        // both at once: each is a process start, and the daemon's start waits for the slower one only
        Process versionRun = start(binary, "--version");
        Process helpRun;
        try {
            helpRun = start(binary, "--help");
        } catch (RuntimeException e) {
            ProcessKill.killTree(versionRun, PROBE_KILL_WAIT);
            throw e;
        }
        Matcher version;
        String help;
        try {
            String versionOutput = collect(versionRun, binary, "--version");
            version = VERSION.matcher(versionOutput);
            if (!version.find()) {
                throw new UnsupportedVirtiofsdException(binary + " --version printed '" + versionOutput.strip()
                        + "', not 'virtiofsd <version>': not a virtiofsd binary");
            }
            help = collect(helpRun, binary, "--help");
        } finally {
            ProcessKill.killTree(helpRun, PROBE_KILL_WAIT); // collect kills its own; this is for a failure before it
        }
        Set<String> flags = new LinkedHashSet<>();
        Matcher flag = FLAG.matcher(help);
        while (flag.find()) {
            flags.add(flag.group(1));
        }
        VirtiofsdBinary probed = new VirtiofsdBinary(binary, version.group(1), flags, help);
        probed.requireSupport();
        if (!TESTED_VERSION.equals(probed.version)) {
            LOG.log(System.Logger.Level.WARNING, "virtiofsd {0} at {1} has every flag ateom needs but only {2} is tested",
                    probed.version, binary, TESTED_VERSION);
        }
        return probed;
    }

    @Override
    public String toString() {
        return "virtiofsd " + version + " at " + path;
    }

    private void requireSupport() {
        for (String needed : VirtiofsdArgv.REQUIRED_FLAGS) {
            if (!flags.contains(needed)) {
                throw new UnsupportedVirtiofsdException("virtiofsd " + version + " at " + path + " lacks the flag "
                        + needed + " that ateom needs (tested with " + TESTED_VERSION + ")");
            }
        }
        for (Map.Entry<String, String> value : VirtiofsdArgv.REQUIRED_VALUES.entrySet()) {
            if (!help.contains(value.getValue())) {
                throw new UnsupportedVirtiofsdException("virtiofsd " + version + " at " + path + " does not document "
                        + value.getKey() + "=" + value.getValue() + " that ateom needs (tested with " + TESTED_VERSION + ")");
            }
        }
    }

    private static Process start(Path binary, String argument) {
        try {
            // a one-shot probe: it need not die with the daemon, but the one launcher starts it all the same
            return ChildLauncher.start(new ProcessBuilder(List.of(binary.toString(), argument)).redirectErrorStream(true), false);
        } catch (IOException e) {
            throw new UnsupportedVirtiofsdException("cannot run " + binary + " " + argument + ": " + e.getMessage(), e);
        }
    }

    /** The output of a probe run that exited 0 within the timeout; kills it in any case. */
    private static String collect(Process process, Path binary, String argument) {
        try (InputStream out = process.getInputStream()) {
            process.getOutputStream().close();
            byte[] bytes = out.readNBytes(1 << 20);
            if (!process.waitFor(PROBE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new UnsupportedVirtiofsdException(binary + " " + argument + " did not exit within "
                        + PROBE_TIMEOUT_SECONDS + " s");
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new UnsupportedVirtiofsdException(binary + " " + argument + " exited with status "
                        + process.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (IOException e) {
            throw new UnsupportedVirtiofsdException("cannot read output of " + binary + " " + argument + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnsupportedVirtiofsdException("interrupted while running " + binary + " " + argument, e);
        } finally {
            ProcessKill.killTree(process, PROBE_KILL_WAIT);
        }
    }
}
