package dev.ateom.chv.vsock;

import java.nio.charset.StandardCharsets;

/**
 * One answer of the guest's identity probe: either a payload ({@code OK <n>} + n bytes) or an error
 * ({@code ERR <ERRNO-NAME> <message>}), e.g. {@code EIO} when a held descriptor lost its file at a restore.
 *
 * @param payload the bytes, or null for an error
 * @param errno   the errno name ({@code ENOENT}, {@code EIO}, ...), or null when ok
 * @param message the probe's error message, or null when ok
 */
public record ProbeReply(byte[] payload, String errno, String message) {

    public boolean ok() {
        return errno == null;
    }

    /** The payload as UTF-8; throws with the probe's error when this is one. */
    public String text() {
        if (!ok()) {
            throw new ProbeException("probe error " + errno + ": " + message);
        }
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return ok() ? "OK '" + new String(payload, StandardCharsets.UTF_8) + "'" : "ERR " + errno + " " + message;
    }
}
