package dev.ateom.network;

/** Guest TCP port {@code guestPort} is reachable at {@code 127.0.0.1:hostPort} in the host namespace. */
public record PublishedPort(int guestPort, int hostPort) {
}
