package dev.ateom.virtiofsd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class VirtiofsdExitTest {

    private static final List<String> DISCONNECTED = List.of(
            "[2026-11-30T12:18:32Z INFO  virtiofsd] Client connected, servicing requests",
            "[2026-11-30T12:18:32Z INFO  virtiofsd] Client disconnected, shutting down");

    @Test
    void statusZeroWithDisconnectLineIsAFrontendDisconnect() {
        VirtiofsdExit exit = VirtiofsdExit.classify(false, OptionalInt.of(0), DISCONNECTED);
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
        assertThat(exit.describe()).isEqualTo("frontend disconnected");
    }

    @Test
    void statusZeroWithoutDisconnectLineIsAPlainExit() {
        assertThat(VirtiofsdExit.classify(false, OptionalInt.of(0), List.of("x")).reason()).isEqualTo(VirtiofsdExit.Reason.EXITED);
    }

    @Test
    void javaSignalStatusIsACrashWithThatSignal() {
        VirtiofsdExit exit = VirtiofsdExit.classify(false, OptionalInt.of(128 + 9), List.of());
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.CRASHED);
        assertThat(exit.signal()).hasValue(9);
        assertThat(exit.exitStatus()).isEmpty();
        assertThat(exit.describe()).isEqualTo("crashed: killed by signal 9 (SIGKILL)");
    }

    @Test
    void sandboxChildKilledBySignalIsACrashEvenThoughTheParentExitedNormally() {
        VirtiofsdExit exit = VirtiofsdExit.classify(false, OptionalInt.of(247),
                List.of("[2026-11-30T12:17:39Z ERROR virtiofsd::util] Child process terminated by signal 31"));
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.CRASHED);
        assertThat(exit.describe()).contains("signal 31 (SIGSYS)");
    }

    @Test
    void nonZeroStatusIsAFailureQuotingTheLastLogLine() {
        VirtiofsdExit exit = VirtiofsdExit.classify(false, OptionalInt.of(1), List.of("Error: No such file"));
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.FAILED);
        assertThat(exit.describe()).isEqualTo("failed: exit status 1; last log line: Error: No such file");
    }

    @Test
    void requestedStopIsAStopWhateverTheStatus() {
        VirtiofsdExit exit = VirtiofsdExit.classify(true, OptionalInt.of(128 + 9), List.of());
        assertThat(exit.reason()).isEqualTo(VirtiofsdExit.Reason.STOPPED);
        assertThat(exit.signal()).hasValue(9);
    }

    @Test
    void adoptedProcessWithoutStatusIsClassifiedByItsLog() {
        assertThat(VirtiofsdExit.classify(false, OptionalInt.empty(), DISCONNECTED).reason())
                .isEqualTo(VirtiofsdExit.Reason.FRONTEND_DISCONNECTED);
        assertThat(VirtiofsdExit.classify(false, OptionalInt.empty(), List.of()).reason())
                .isEqualTo(VirtiofsdExit.Reason.VANISHED);
    }
}
