package dev.ateom.microvm.sandbox;

/** What came back from the guest's probe for one command line: its answer, or nothing and why. */
public sealed interface GuestProbeAnswer {
    /**
     * The probe answered: {@code OK} with {@code output} (errno null), or {@code ERR} with the errno name and message.
     * The output is the payload as UTF-8 (malformed bytes replaced).
     */
    record Reply(String output, String errno, String message) implements GuestProbeAnswer {
        public boolean ok() { return errno == null; }
    }

    /** No answer: {@code timedOut} when the guest stayed silent until the deadline, else the connection failed or broke. */
    record Silent(boolean timedOut, String detail) implements GuestProbeAnswer {}
}
