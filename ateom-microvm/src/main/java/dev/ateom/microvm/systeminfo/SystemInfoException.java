package dev.ateom.microvm.systeminfo;

/** A system-info volume could not be written; the message names the sandbox, the volume and the reason. */
public final class SystemInfoException extends Exception {
    public SystemInfoException(String message, Throwable cause) {
        super(message, cause);
    }
}
