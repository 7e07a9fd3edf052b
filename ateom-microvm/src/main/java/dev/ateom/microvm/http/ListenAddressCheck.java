package dev.ateom.microvm.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/** The API is plain HTTP with a bearer token: on anything but loopback, the token crosses the network readable. */
public final class ListenAddressCheck {
    private ListenAddressCheck() {}

    /** The warning to log at start for {@code host}, or empty when it is a loopback address. */
    public static Optional<String> warning(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            if (address.isLoopbackAddress()) return Optional.empty();
        } catch (UnknownHostException e) {
            // an unresolvable name fails the bind right after; warn anyway, it is not known to be loopback
        }
        return Optional.of("the API listens on " + host + ", which is not a loopback address: it speaks plain HTTP, so the"
                + " bearer token and every request cross the network unencrypted. Put a TLS-terminating reverse proxy in"
                + " front (README, \"Exposing the API\") or bind 127.0.0.1");
    }
}
