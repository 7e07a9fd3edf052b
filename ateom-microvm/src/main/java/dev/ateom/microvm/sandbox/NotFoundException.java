package dev.ateom.microvm.sandbox;

/** No sandbox or snapshot by that id. */
public final class NotFoundException extends SandboxException {
    private final String kind;

    private NotFoundException(String kind, String id, String sandboxId) {
        super(kind + " '" + id + "' does not exist", sandboxId, null, null);
        this.kind = kind;
    }

    public static NotFoundException sandbox(String id) { return new NotFoundException("Sandbox", id, id); }

    public static NotFoundException snapshot(String id) { return new NotFoundException("Snapshot", id, null); }

    /** {@code Sandbox} or {@code Snapshot}. */
    public String kind() { return kind; }
}
