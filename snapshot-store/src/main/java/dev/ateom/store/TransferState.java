package dev.ateom.store;

/** Where a push (or pull) of one snapshot is. */
public enum TransferState {
    PENDING,
    RUNNING,
    DONE,
    FAILED;

    /** As the API shows a push: pending, pushing, pushed, failed. */
    public String pushWord() {
        return switch (this) {
            case PENDING -> "pending";
            case RUNNING -> "pushing";
            case DONE -> "pushed";
            case FAILED -> "failed";
        };
    }

    /** As the API shows a pull: pending, pulling, pulled, failed. */
    public String pullWord() {
        return switch (this) {
            case PENDING -> "pending";
            case RUNNING -> "pulling";
            case DONE -> "pulled";
            case FAILED -> "failed";
        };
    }
}
