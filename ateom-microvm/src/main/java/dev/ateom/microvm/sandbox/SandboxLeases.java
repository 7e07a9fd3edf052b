package dev.ateom.microvm.sandbox;

/**
 * Which host may run a sandbox that moves between hosts (leases in the snapshot store). Where leases are held while
 * running ({@link #heldWhileRunning}), a sandbox holds its lease exactly while it runs here ({@link LeaseKeeper} keeps
 * that rule); elsewhere only adopting takes one, and a resume checks that no other host holds it.
 */
public interface SandboxLeases {
    /** No store: adopting is refused; nothing to release or check. */
    SandboxLeases NONE = new SandboxLeases() {
        @Override
        public void acquire(String sandboxId) {
            throw new RemoteStoreException(RemoteStoreException.Kind.NOT_CONFIGURED,
                    "adopting needs a snapshot store (--snapshot-store)", "snapshot-store", null);
        }

        @Override
        public void release(String sandboxId) { }

        @Override
        public void requireNotHeldByAnother(String sandboxId) { }

        @Override
        public boolean heldWhileRunning() { return false; }
    };

    /**
     * Takes the lease for this host; one this host holds already is fine.
     *
     * @throws RemoteStoreException another host holds it (naming it), leases cannot be had from this store, or the
     *                              store cannot be asked
     */
    void acquire(String sandboxId);

    /** Gives this host's lease back, if it holds one; never throws (a failure is logged). */
    void release(String sandboxId);

    /** @throws RemoteStoreException another host holds the sandbox's lease (it adopted the sandbox) */
    void requireNotHeldByAnother(String sandboxId);

    /**
     * Whether every sandbox holds its lease while it runs here: a store is configured, leases are on and the start
     * probe found conditional writes honoured. False: only adopting takes a lease (today's behaviour without a store,
     * with {@code --snapshot-store-leases=off}, or on a store whose conditional writes cannot be trusted).
     */
    boolean heldWhileRunning();
}
