package dev.ateom.microvm.sandbox;

/**
 * Which host may run a sandbox that moves between hosts (leases in the snapshot store): taken when a host adopts a
 * sandbox, given back when it deletes it, checked before a host resumes a sandbox another may have adopted.
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
    };

    /** @throws RemoteStoreException another host holds it, or leases cannot be had from this store */
    void acquire(String sandboxId);

    /** Gives this host's lease back, if it holds one; never throws (a failure is logged). */
    void release(String sandboxId);

    /** @throws RemoteStoreException another host holds the sandbox's lease (it adopted the sandbox) */
    void requireNotHeldByAnother(String sandboxId);
}
