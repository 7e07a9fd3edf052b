package dev.ateom.microvm.sandbox;

/**
 * A sandbox asks for a network the daemon cannot give now: networking is off or not usable on this host (the detail
 * says why and how to turn it on), or every slot of the pool is in use.
 */
public final class NetworkUnavailableException extends SandboxException {
    public NetworkUnavailableException(String detail, String sandboxId, SandboxState state) {
        super(detail, sandboxId, state, null);
    }
}
