package dev.ateom.network;

import com.sun.net.httpserver.HttpServer;
import dev.ateom.network.netlink.RouteNetlink;
import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A "test host": a network namespace of the test's own, linked by a veth to the test's host namespace and routed
 * from it, running a tiny HTTP server on port 80 that answers every GET with {@link #body()} and remembers the
 * source address of each request.
 */
public final class TestHost implements AutoCloseable {
    private final String namespaceName;
    private final String link;
    private final Ipv4Address address;
    private final NetNamespace namespace;
    private final HttpServer server;
    private final List<String> sources = new CopyOnWriteArrayList<>();

    private TestHost(String namespaceName, String link, Ipv4Address address, NetNamespace namespace, HttpServer server) {
        this.namespaceName = namespaceName;
        this.link = link;
        this.address = address;
        this.namespace = namespace;
        this.server = server;
    }

    /**
     * Test host {@code number} on {@code network} (a /24): the host side of the link gets {@code .1}, the test host
     * {@code .10}; the host interface is {@code <prefix>-x<number>}.
     */
    static TestHost create(NetNamespace host, String prefix, int number, Ipv4Cidr network) throws IOException {
        String name = prefix + "-t" + number;
        String link = prefix + "-x" + number;
        Ipv4Address gateway = network.network().plus(1);
        Ipv4Address address = network.network().plus(10);
        NetNamespaces.create(name);
        NetNamespace namespace = null;
        try {
            namespace = NetNamespace.named(name);
            int fd = namespace.fd();
            host.call(() -> {
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    netlink.createVeth(link, "eth0", fd);
                    int index = netlink.linkIndex(link);
                    netlink.addAddress(index, gateway.bits(), network.prefixLength());
                    netlink.setUp(index);
                }
                return null;
            });
            var sources = new CopyOnWriteArrayList<String>();
            HttpServer server = namespace.call(() -> {
                try (RouteNetlink netlink = RouteNetlink.open()) {
                    netlink.setUp(netlink.linkIndex("lo"));
                    int index = netlink.linkIndex("eth0");
                    netlink.addAddress(index, address.bits(), network.prefixLength());
                    netlink.setUp(index);
                    netlink.addDefaultRoute(gateway.bits());
                }
                // the listening socket is created here, so it belongs to this namespace
                return HttpServer.create(new InetSocketAddress(InetAddress.getByAddress(address.octets()), 80), 16);
            });
            var testHost = new TestHost(name, link, address, namespace, server);
            server.createContext("/", exchange -> {
                testHost.sources.add(exchange.getRemoteAddress().getAddress().getHostAddress());
                byte[] body = testHost.body().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
            return testHost;
        } catch (IOException | RuntimeException e) {
            if (namespace != null) {
                namespace.close();
            }
            NetNamespaces.delete(name);
            throw e;
        }
    }

    public Ipv4Address address() {
        return address;
    }

    /** The host-namespace side of the link (a routed interface: no masquerade towards it). */
    public String link() {
        return link;
    }

    public String body() {
        return "hello from " + namespaceName;
    }

    /** Source addresses of the requests served so far. */
    public List<String> sources() {
        return List.copyOf(sources);
    }

    @Override
    public void close() throws IOException {
        server.stop(0);
        namespace.close();
        NetNamespaces.delete(namespaceName);
    }
}
