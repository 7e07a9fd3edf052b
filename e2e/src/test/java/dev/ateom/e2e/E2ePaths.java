package dev.ateom.e2e;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the end-to-end tests find the built daemon, the CHV stand-in and virtiofsd. */
final class E2ePaths {
    private E2ePaths() {}

    static Path repoRoot() {
        return Path.of(System.getProperty("ateom.repo.root", System.getProperty("user.dir") + "/..")).toAbsolutePath().normalize();
    }

    /** {@code bin/ateom}; needs the daemon jar and its libs from {@code mvn package} of ateom-microvm. */
    static Path ateomCommand() {
        Path jar = repoRoot().resolve("ateom-microvm/target/ateom-microvm.jar");
        if (!Files.isRegularFile(jar) || !Files.isDirectory(repoRoot().resolve("ateom-microvm/target/lib"))) {
            throw new IllegalStateException("the daemon is not packaged (" + jar + " or target/lib missing): run "
                    + "mvn -pl chv-client,virtiofsd-manager,snapshot,fixtures,ateom-microvm -DskipTests install");
        }
        return repoRoot().resolve("bin/ateom");
    }

    static Path standIn() {
        if (!Files.isDirectory(repoRoot().resolve("fixtures/target/lib"))) {
            throw new IllegalStateException("the CHV stand-in is not built: run mvn -pl fixtures package");
        }
        return repoRoot().resolve("fixtures/bin/chv-standin");
    }

    static Path virtiofsd() {
        String env = System.getenv("ATEOM_VIRTIOFSD");
        Path path = env != null ? Path.of(env) : repoRoot().resolve(".tools/virtiofsd/bin/virtiofsd");
        if (!Files.isExecutable(path)) throw new IllegalStateException("virtiofsd not found at " + path + ": run scripts/setup.sh");
        return path;
    }
}
