package dev.ateom.virtiofsd;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Finds live processes whose command line mentions a test's directory: anything a test leaked. */
final class ProcessLeaks {

    private ProcessLeaks() {}

    static List<LinuxProcess> mentioning(Path dir) {
        String needle = dir.toString();
        return LinuxProcess.all().stream()
                .filter(p -> !p.isZombie())
                .filter(p -> p.pid() != ProcessHandle.current().pid())
                .filter(p -> p.argv().stream().anyMatch(arg -> arg.contains(needle)))
                .toList();
    }

    /** Virtiofsd processes below this JVM in the process tree. */
    static List<LinuxProcess> virtiofsdChildrenOfThisJvm() {
        return ProcessHandle.current().descendants()
                .map(h -> LinuxProcess.read(h.pid()))
                .flatMap(Optional::stream)
                .filter(p -> !p.isZombie())
                .filter(p -> p.argv().stream().limit(4).anyMatch(a -> a.endsWith("virtiofsd")))
                .toList();
    }
}
