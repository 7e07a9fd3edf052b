package dev.ateom.network;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.os.LibC;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.os.TapDevice;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Stands in for a VM on a slot's TAP: a namespace of the test's own with a TAP of its own holding the guest address
 * and MAC, and a pump copying frames between that TAP and a duplicate of the slot's TAP descriptor (as CHV gets one).
 * Both TAPs carry the same virtio-net header (same flags, no offloads enabled), so frames pass through unchanged.
 */
final class FakeGuest implements AutoCloseable {
    private static final int BUFFER = 70_000;

    private final String namespaceName;
    private final NetNamespace namespace;
    private final int slotTap;
    private final TapDevice guestTap;
    private final Thread toGuest;
    private final Thread toSlot;
    private volatile boolean closed;
    private ServerSocket listener;
    private Thread acceptor;

    private FakeGuest(String namespaceName, NetNamespace namespace, int slotTap, TapDevice guestTap) {
        this.namespaceName = namespaceName;
        this.namespace = namespace;
        this.slotTap = slotTap;
        this.guestTap = guestTap;
        this.toGuest = Thread.ofPlatform().daemon().name("pump to " + namespaceName).start(() -> pump(slotTap, guestTap.fd()));
        this.toSlot = Thread.ofPlatform().daemon().name("pump from " + namespaceName).start(() -> pump(guestTap.fd(), slotTap));
    }

    static FakeGuest attach(Slot slot, String namespaceName) throws IOException {
        NetNamespaces.create(namespaceName);
        NetNamespace namespace = NetNamespace.named(namespaceName);
        try {
            TapDevice tap = namespace.call(() -> {
                TapDevice created = TapDevice.create(GuestNetwork.GUEST_INTERFACE);
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    netlink.setUp(netlink.linkIndex("lo"));
                    int index = netlink.linkIndex(GuestNetwork.GUEST_INTERFACE);
                    netlink.setMac(index, GuestNetwork.GUEST_MAC.octets());
                    netlink.addAddress(index, GuestNetwork.GUEST_ADDRESS.bits(), GuestNetwork.PREFIX_LENGTH);
                    netlink.setUp(index);
                    netlink.addDefaultRoute(GuestNetwork.GATEWAY_ADDRESS.bits());
                }
                return created;
            });
            return new FakeGuest(namespaceName, namespace, LibC.dup(slot.tapFd()), tap);
        } catch (IOException | RuntimeException e) {
            namespace.close();
            NetNamespaces.delete(namespaceName);
            throw e;
        }
    }

    /** Copies frames from {@code from} to {@code to} until closed. */
    private void pump(int from, int to) {
        try (Memory frame = new Memory(BUFFER); Memory pollfd = new Memory(8)) {
            while (!closed) {
                pollfd.setInt(0, from);
                pollfd.setShort(4, LibC.POLLIN);
                pollfd.setShort(6, (short) 0);
                if (LibC.poll(pollfd, 1, 100) <= 0) {
                    continue;
                }
                long n = LibC.read(from, frame, BUFFER);
                if (n > 0) {
                    LibC.write(to, frame, n);
                }
            }
        } catch (LastErrorException e) {
            if (!closed) {
                System.err.println("fake guest pump " + namespaceName + ": " + LibC.errnoName(e.getErrorCode()));
            }
        }
    }

    /** Connects to {@code address:port} from the guest: "ok", or the exception's class and message. */
    String connect(Ipv4Address address, int port) throws IOException {
        return namespace.call(() -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getByAddress(address.octets()), port), 3000);
                return "ok";
            } catch (IOException e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        });
    }

    /** An HTTP/1.0 GET from the guest; the whole answer (status line, headers, body). */
    String httpGet(Ipv4Address address, int port, String path) throws IOException {
        return namespace.call(() -> HttpGet.fetch(address, port, path));
    }

    /** A socket opened from the guest and left open (to see what a policy change does to it). */
    Socket openConnection(Ipv4Address address, int port) throws IOException {
        return namespace.call(() -> {
            Socket socket = new Socket();
            socket.connect(new InetSocketAddress(InetAddress.getByAddress(address.octets()), port), 3000);
            socket.setSoTimeout(3000);
            return socket;
        });
    }

    /** Serves {@code body} (HTTP/1.0) on {@code port} of the guest until closed. */
    void serveHttp(int port, String body) throws IOException {
        listener = namespace.call(() -> new ServerSocket(port, 16, InetAddress.getByAddress(GuestNetwork.GUEST_ADDRESS.octets())));
        acceptor = Thread.ofPlatform().daemon().name("guest http " + namespaceName).start(() -> {
            while (!closed) {
                try (Socket client = listener.accept(); InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
                    client.setSoTimeout(3000);
                    in.read(new byte[4096]);
                    out.write(("HTTP/1.0 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                }
            }
        });
    }

    @Override
    public void close() throws IOException {
        closed = true;
        if (listener != null) {
            listener.close();
        }
        joinQuietly(toGuest);
        joinQuietly(toSlot);
        joinQuietly(acceptor);
        guestTap.close();
        LibC.closeQuietly(slotTap);
        namespace.close();
        NetNamespaces.delete(namespaceName);
    }

    private static void joinQuietly(Thread thread) {
        if (thread == null) {
            return;
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
