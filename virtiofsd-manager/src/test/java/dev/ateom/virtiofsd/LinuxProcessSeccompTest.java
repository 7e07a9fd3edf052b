package dev.ateom.virtiofsd;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The serving watch's sign that virtiofsd is ready: {@code Seccomp: 2} in /proc/pid/status, read as bytes. */
class LinuxProcessSeccompTest {
    private static final String BEFORE = "Name:\tvirtiofsd\nState:\tS (sleeping)\nNoNewPrivs:\t1\n";
    private static final String AFTER = "\nSeccomp_filters:\t1\nSpeculation_Store_Bypass:\tthread vulnerable\n";

    @Test
    void filterModeIsTheOnlyModeThatCounts() {
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:\t2" + AFTER))).isTrue();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:\t0" + AFTER))).isFalse();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:\t1" + AFTER))).as("strict mode").isFalse();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:\t22" + AFTER))).isFalse();
    }

    @Test
    void theLineIsFoundWhereverItIs() {
        assertThat(LinuxProcess.seccompFiltered(status("Seccomp:  2\n"))).as("first line, spaces").isTrue();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:\t2"))).as("last line, no newline").isTrue();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp:"))).as("cut after the name").isFalse();
        assertThat(LinuxProcess.seccompFiltered(status("Name:\tSeccomp:\t2\n"))).as("only at a line's start").isFalse();
        assertThat(LinuxProcess.seccompFiltered(status(BEFORE + "Seccomp_filters:\t2\n"))).isFalse();
        assertThat(LinuxProcess.seccompFiltered(new byte[0])).isFalse();
    }

    @Test
    void aLiveProcessIsReadFromProc() throws Exception {
        // this JVM runs under a filter or not depending on where the build runs (a container's default profile has one)
        boolean filtered = Files.readAllLines(Path.of("/proc/self/status")).contains("Seccomp:\t2");
        assertThat(LinuxProcess.underSeccompFilter(ProcessHandle.current().pid())).isEqualTo(filtered);
        assertThat(LinuxProcess.underSeccompFilter(Long.MAX_VALUE)).as("no such process").isFalse();
    }

    private static byte[] status(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
