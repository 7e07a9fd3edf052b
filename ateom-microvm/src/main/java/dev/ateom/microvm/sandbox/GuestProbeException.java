package dev.ateom.microvm.sandbox;

/** The guest's probe did not answer a command: it stayed silent until the deadline, or could not be reached. */
public final class GuestProbeException extends SandboxException {
    private final boolean timedOut;

    public GuestProbeException(String sandboxId, SandboxState state, GuestProbeAnswer.Silent silent) {
        super("the guest probe of sandbox " + sandboxId + (silent.timedOut() ? " did not answer in time: " : " could not be reached: ")
                + silent.detail(), sandboxId, state, null);
        this.timedOut = silent.timedOut();
    }

    public boolean timedOut() { return timedOut; }
}
