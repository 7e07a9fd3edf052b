package dev.ateom.store;

import java.util.Locale;

/** Leases are wanted but the store's lease verdict is not HONOURED, so one cannot be taken safely. */
public final class LeasesUnavailableException extends StoreException {
    private final LeaseVerdict verdict;

    public LeasesUnavailableException(LeaseVerdict verdict) {
        super("the store cannot hold leases: its lease verdict is " + verdict.state() + " (conditional writes "
                + verdict.state().toLowerCase(Locale.ROOT) + ", recorded by " + verdict.recordedBy() + " at " + verdict.recordedAt() + ": "
                + verdict.detail() + "); two hosts could run the same sandbox. Set leases off to adopt anyway, or reset the verdict "
                + "once the store is fixed", StoreOption.LEASES, null);
        this.verdict = verdict;
    }

    public LeaseVerdict verdict() {
        return verdict;
    }
}
