package dev.ateom.microvm.jail;

import dev.ateom.process.ChildLauncher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a VMM binary needs inside its jail to run: a real cloud-hypervisor is itself and the libraries {@code ldd}
 * names (nothing else when static). A script is the CHV stand-in (a JVM): its profile binds the system's
 * {@code /usr}, {@code /bin}, {@code /lib}, {@code /lib64}, the JDK and the fixtures tree read-only, points the
 * JVM's temporary files into the run dir, and needs more memory than CHV.
 *
 * @param readOnly          host paths bound read-only at their own path
 * @param standIn           whether this is the JVM-based stand-in's profile
 * @param extraOverheadMib  memory the program needs beyond the configured overhead
 */
public record VmmProgram(List<Path> readOnly, boolean standIn, long extraOverheadMib) {
    private static final System.Logger LOG = System.getLogger(VmmProgram.class.getName());
    private static final Pattern LIBRARY = Pattern.compile("(/\\S+)\\s+\\(0x");
    /** A JVM's heap (the stand-in runs with -Xmx128m), metaspace, code cache and thread stacks. */
    private static final long STAND_IN_OVERHEAD_MIB = 768;
    private static final Path STAND_IN = Path.of("fixtures", "bin", "chv-standin");

    public VmmProgram {
        readOnly = List.copyOf(readOnly);
    }

    /** The profile of {@code binary} (resolved). */
    public static VmmProgram of(Path binary) {
        Path real;
        try {
            real = binary.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("cannot resolve the hypervisor binary " + binary + ": " + e.getMessage(), e);
        }
        return isScript(real) ? standIn(binary, real) : elf(binary, real);
    }

    /** The environment the program gets inside a jail whose writable dir is {@code runDir}. */
    public Map<String, String> environment(Path runDir) {
        if (!standIn) return Map.of();
        // JNA unpacks its native library into a temporary dir; the jail's only writable place is the run dir
        return Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + runDir + " -Djna.tmpdir=" + runDir + " -XX:-UsePerfData");
    }

    private static boolean isScript(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(2);
            return head.length == 2 && head[0] == '#' && head[1] == '!';
        } catch (IOException e) {
            return false;
        }
    }

    private static VmmProgram standIn(Path binary, Path real) {
        Set<Path> paths = new LinkedHashSet<>();
        for (String system : List.of("/usr", "/bin", "/lib", "/lib64")) {
            if (Files.exists(Path.of(system))) paths.add(Path.of(system));
        }
        paths.add(Path.of(System.getProperty("java.home")));
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null && !javaHome.isBlank() && Files.isDirectory(Path.of(javaHome))) paths.add(Path.of(javaHome));
        // fixtures/bin/chv-standin runs fixtures/target/classes and target/lib: the fixtures tree. A wrapper script
        // (tests set the backend in one) is bound as itself, with the fixtures tree of the stand-in it names
        paths.add(real);
        if (!binary.toAbsolutePath().normalize().equals(real)) paths.add(binary.toAbsolutePath().normalize());
        for (Path standIn : standInsNamedBy(real)) paths.add(standIn.getParent().getParent());
        return new VmmProgram(new ArrayList<>(paths), true, STAND_IN_OVERHEAD_MIB);
    }

    /** The script itself when it is the stand-in, else the stand-ins ({@code .../fixtures/bin/chv-standin}) its text names. */
    private static List<Path> standInsNamedBy(Path script) {
        if (script.endsWith(STAND_IN)) return List.of(script);
        List<Path> named = new ArrayList<>();
        try {
            for (String token : Files.readString(script, StandardCharsets.UTF_8).split("[\\s\"']+")) {
                if (!token.startsWith("/") || !token.endsWith(STAND_IN.toString())) continue;
                Path candidate = Path.of(token);
                if (Files.isRegularFile(candidate)) named.add(candidate.toRealPath());
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read the hypervisor script " + script + ": " + e.getMessage());
        }
        return named;
    }

    private static VmmProgram elf(Path binary, Path real) {
        Set<Path> paths = new LinkedHashSet<>();
        paths.add(real);
        if (!binary.toAbsolutePath().normalize().equals(real)) paths.add(binary.toAbsolutePath().normalize());
        paths.addAll(libraries(real));
        return new VmmProgram(new ArrayList<>(paths), false, 0);
    }

    /** The shared libraries {@code ldd} names (and the dynamic loader); none for a static binary. */
    static List<Path> libraries(Path binary) {
        List<Path> libraries = new ArrayList<>();
        try {
            Process ldd = ChildLauncher.start(new ProcessBuilder("ldd", binary.toString()).redirectErrorStream(true), false);
            String out = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ldd.waitFor(10, TimeUnit.SECONDS)) ldd.destroyForcibly();
            Matcher m = LIBRARY.matcher(out);
            while (m.find()) libraries.add(Path.of(m.group(1)));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot run ldd on " + binary + " (" + e.getMessage() + "): jailing it as a static binary");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return libraries;
    }
}
