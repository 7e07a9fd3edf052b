package dev.ateom.network;

import java.io.IOException;
import java.net.Socket;

/**
 * A host port held for a published guest port: a socket bound to {@code 127.0.0.1:port} that never listens, so
 * no other program can take the port while the daemon's DNAT rule sends its connections to the guest (a bound but
 * not listening port refuses nothing the rule catches first, and catches nothing itself).
 */
record HostPortReservation(int port, Socket socket) implements AutoCloseable {
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the port is free either way
        }
    }
}
