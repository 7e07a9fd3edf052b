package dev.ateom.network;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/** Picks and holds host loopback ports for published guest ports, in the host namespace. */
final class HostPorts {
    private static final InetAddress LOOPBACK;

    static {
        try {
            LOOPBACK = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private HostPorts() {
    }

    /**
     * One reservation per request, in order: the preferred port when it is free, a port the kernel picks otherwise.
     * Sockets belong to the network namespace of the thread that creates them: call this inside the host's.
     */
    static List<HostPortReservation> reserve(List<PortRequest> requests) throws IOException {
        List<HostPortReservation> held = new ArrayList<>();
        try {
            for (PortRequest request : requests) {
                held.add(bind(request.hostPort()));
            }
            return held;
        } catch (IOException | RuntimeException e) {
            held.forEach(HostPortReservation::close);
            throw e;
        }
    }

    private static HostPortReservation bind(int preferred) throws IOException {
        if (preferred != 0) {
            Socket socket = new Socket();
            try {
                socket.bind(new InetSocketAddress(LOOPBACK, preferred));
                return new HostPortReservation(socket.getLocalPort(), socket);
            } catch (BindException taken) {
                socket.close();
            }
        }
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(LOOPBACK, 0));
            return new HostPortReservation(socket.getLocalPort(), socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }
}
