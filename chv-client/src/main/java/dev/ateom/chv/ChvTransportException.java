package dev.ateom.chv;

import java.nio.file.Path;

/** The request did not make it: no socket, no listener, connection dropped, unparsable answer, or cancelled. */
public final class ChvTransportException extends ChvException {
    ChvTransportException(String endpoint, Path socket, String reason) {
        super(endpoint, reason + " (api socket " + socket + ")", null);
    }

    ChvTransportException(String endpoint, String reason, Throwable cause) {
        super(endpoint, reason, cause);
    }
}
