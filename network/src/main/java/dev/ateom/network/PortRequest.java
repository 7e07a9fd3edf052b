package dev.ateom.network;

/**
 * Publish guest TCP port {@code guestPort} on the host's loopback. {@code hostPort} 0 lets the daemon pick a free
 * port; another value is a preference (kept when free, so a resumed sandbox keeps its ports; replaced otherwise).
 */
public record PortRequest(int guestPort, int hostPort) {
    public static PortRequest guest(int guestPort) {
        return new PortRequest(guestPort, 0);
    }
}
