package dev.ateom.e2b;

/** An answer in E2B's error shape, {@code {"code": status, "message": ...}}, with the status the SDK maps. */
final class E2bError extends RuntimeException {
    private final int status;

    E2bError(int status, String message) {
        super(message);
        this.status = status;
    }

    int status() { return status; }

    static E2bError badRequest(String message) { return new E2bError(400, message); }

    static E2bError unauthorized(String message) { return new E2bError(401, message); }

    static E2bError forbidden(String message) { return new E2bError(403, message); }

    static E2bError notFound(String message) { return new E2bError(404, message); }

    static E2bError conflict(String message) { return new E2bError(409, message); }

    static E2bError badGateway(String message) { return new E2bError(502, message); }

    static E2bError sandboxNotFound(String id) { return notFound("sandbox '" + id + "' not found"); }
}
