package dev.ateom.virtiofsd;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How and why a virtiofsd ended.
 *
 * @param reason     the classification the daemon acts on
 * @param exitStatus exit status when it was our child and exited normally
 * @param signal     signal that killed it (or, in namespace sandbox mode, its sandboxed child)
 * @param logTail    the last lines of its log, for diagnostics
 */
public record VirtiofsdExit(Reason reason, OptionalInt exitStatus, OptionalInt signal, List<String> logTail) {

    public enum Reason {
        /** ateom asked it to stop. */
        STOPPED,
        /** Its VMM disconnected; virtiofsd then exits 0 by design. Normal after the VM stops. */
        FRONTEND_DISCONNECTED,
        /** Killed by a signal it did not get from ateom (kill -9, a seccomp SIGSYS, a segfault). */
        CRASHED,
        /** Exited with a non-zero status: an error virtiofsd reported in its log. */
        FAILED,
        /** Exited 0 without a disconnect message. */
        EXITED,
        /** An adopted process (not our child) is gone and its log says nothing: the status is unknowable. */
        VANISHED
    }

    static final String DISCONNECT_MESSAGE = "Client disconnected";
    private static final Pattern CHILD_SIGNAL = Pattern.compile("Child process terminated by signal (\\d+)");
    private static final Map<Integer, String> SIGNAL_NAMES = Map.of(
            1, "SIGHUP", 2, "SIGINT", 4, "SIGILL", 6, "SIGABRT", 7, "SIGBUS", 9, "SIGKILL",
            11, "SIGSEGV", 13, "SIGPIPE", 15, "SIGTERM", 31, "SIGSYS");

    public VirtiofsdExit {
        logTail = List.copyOf(logTail);
    }

    /**
     * @param stopRequested ateom sent the stop signal
     * @param status        Java's exit value for a child (128+n when killed by signal n), empty for adopted processes
     * @param logLines      what this process wrote to its log
     */
    static VirtiofsdExit classify(boolean stopRequested, OptionalInt status, List<String> logLines) {
        OptionalInt childSignal = OptionalInt.empty();
        boolean disconnected = false;
        for (String line : logLines) {
            Matcher m = CHILD_SIGNAL.matcher(line);
            if (m.find()) childSignal = OptionalInt.of(Integer.parseInt(m.group(1)));
            if (line.contains(DISCONNECT_MESSAGE)) disconnected = true;
        }
        OptionalInt ownSignal = status.isPresent() && status.getAsInt() > 128 && status.getAsInt() <= 128 + 64
                ? OptionalInt.of(status.getAsInt() - 128) : OptionalInt.empty();
        OptionalInt exitStatus = ownSignal.isPresent() ? OptionalInt.empty() : status;
        OptionalInt signal = ownSignal.isPresent() ? ownSignal : childSignal;
        Reason reason;
        if (stopRequested) {
            reason = Reason.STOPPED;
        } else if (signal.isPresent()) {
            reason = Reason.CRASHED;
        } else if (disconnected && (status.isEmpty() || status.getAsInt() == 0)) {
            reason = Reason.FRONTEND_DISCONNECTED;
        } else if (status.isEmpty()) {
            reason = Reason.VANISHED;
        } else if (status.getAsInt() != 0) {
            reason = Reason.FAILED;
        } else {
            reason = Reason.EXITED;
        }
        return new VirtiofsdExit(reason, exitStatus, signal, logLines);
    }

    /** One line for logs and API errors, e.g. "crashed: killed by signal 9 (SIGKILL)". */
    public String describe() {
        return switch (reason) {
            case STOPPED -> "stopped by ateom";
            case FRONTEND_DISCONNECTED -> "frontend disconnected";
            case CRASHED -> "crashed: killed by signal " + signal.getAsInt()
                    + " (" + SIGNAL_NAMES.getOrDefault(signal.getAsInt(), "signal " + signal.getAsInt()) + ")";
            case FAILED -> "failed: exit status " + exitStatus.getAsInt() + lastLine();
            case EXITED -> "exited with status 0 without a frontend disconnect" + lastLine();
            case VANISHED -> "exited with an unknown status (adopted, not our child)" + lastLine();
        };
    }

    private String lastLine() {
        return logTail.isEmpty() ? "" : "; last log line: " + logTail.getLast();
    }
}
