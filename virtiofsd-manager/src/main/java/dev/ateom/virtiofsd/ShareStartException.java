package dev.ateom.virtiofsd;

/** One share of a {@link ShareSet} failed to start; the others were stopped again. */
public class ShareStartException extends VirtiofsdException {
    private final ShareKind failedShare;

    public ShareStartException(ShareKind failedShare, String message, Throwable cause) {
        super(message, cause);
        this.failedShare = failedShare;
    }

    public ShareKind failedShare() { return failedShare; }
}
