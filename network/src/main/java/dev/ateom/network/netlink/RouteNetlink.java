package dev.ateom.network.netlink;

import dev.ateom.network.os.LibC;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The rtnetlink requests a slot is built from: veth pairs, link state and MAC, IPv4 addresses and routes, and the
 * dumps the host checks read. Opens its socket in the calling thread's network namespace and acts there.
 */
public final class RouteNetlink implements AutoCloseable {
    private static final int RTM_NEWLINK = 16;
    private static final int RTM_DELLINK = 17;
    private static final int RTM_GETLINK = 18;
    private static final int RTM_NEWADDR = 20;
    private static final int RTM_GETADDR = 22;
    private static final int RTM_NEWROUTE = 24;
    private static final int RTM_GETROUTE = 26;

    private static final int IFLA_ADDRESS = 1;
    private static final int IFLA_IFNAME = 3;
    private static final int IFLA_LINKINFO = 18;
    private static final int IFLA_NET_NS_FD = 28;
    private static final int IFLA_INFO_KIND = 1;
    private static final int IFLA_INFO_DATA = 2;
    private static final int VETH_INFO_PEER = 1;
    private static final int IFA_ADDRESS = 1;
    private static final int IFA_LOCAL = 2;
    private static final int RTA_DST = 1;
    private static final int RTA_OIF = 4;
    private static final int RTA_GATEWAY = 5;
    private static final int RTA_TABLE = 15;

    private static final int AF_UNSPEC = 0;
    private static final int AF_INET = 2;
    private static final int IFF_UP = 1;
    private static final int RT_TABLE_MAIN = 254;
    private static final int RTPROT_STATIC = 4;
    private static final int RT_SCOPE_UNIVERSE = 0;
    private static final int RTN_UNICAST = 1;
    private static final int CHANGE = NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_ACK;
    private static final int CREATE = CHANGE | NetlinkSocket.NLM_F_CREATE | NetlinkSocket.NLM_F_EXCL;

    private final NetlinkSocket socket;

    private RouteNetlink(NetlinkSocket socket) {
        this.socket = socket;
    }

    /** A socket in the calling thread's network namespace. */
    public static RouteNetlink open() throws IOException {
        return new RouteNetlink(NetlinkSocket.open(NetlinkSocket.NETLINK_ROUTE));
    }

    /**
     * Creates veth {@code name} here with its peer {@code peerName} born directly in the namespace {@code peerNamespaceFd}
     * (never visible in this one, so no second step moves it).
     */
    public void createVeth(String name, String peerName, int peerNamespaceFd) throws IOException {
        NetlinkMessage message = linkMessage(RTM_NEWLINK, CREATE, 0, 0, 0)
                .attributeString(IFLA_IFNAME, name)
                .beginNested(IFLA_LINKINFO)
                .attributeString(IFLA_INFO_KIND, "veth")
                .beginNested(IFLA_INFO_DATA)
                .beginNested(VETH_INFO_PEER);
        ifinfo(message, 0, 0, 0)
                .attributeString(IFLA_IFNAME, peerName)
                .attributeU32(IFLA_NET_NS_FD, peerNamespaceFd)
                .endNested()
                .endNested()
                .endNested();
        socket.request(message, "create veth " + name + " (peer " + peerName + ")");
    }

    /** The index of interface {@code name}, or -1 when there is none. */
    public int linkIndex(String name) throws IOException {
        NetlinkMessage message = linkMessage(RTM_GETLINK, NetlinkSocket.NLM_F_REQUEST, 0, 0, 0).attributeString(IFLA_IFNAME, name);
        try {
            List<ByteBuffer> answer = socket.dump(message, "find interface " + name);
            return answer.isEmpty() ? -1 : answer.getFirst().getInt(20);
        } catch (NetlinkException e) {
            if (e.errno() == LibC.ENODEV) {
                return -1;
            }
            throw e;
        }
    }

    public void setUp(int index) throws IOException {
        socket.request(linkMessage(RTM_NEWLINK, CHANGE, index, IFF_UP, IFF_UP), "set interface " + index + " up");
    }

    public void setMac(int index, byte[] mac) throws IOException {
        socket.request(linkMessage(RTM_NEWLINK, CHANGE, index, 0, 0).attribute(IFLA_ADDRESS, mac), "set MAC of interface " + index);
    }

    /** Deletes interface {@code name} (for a veth: both ends); false when there was none. */
    public boolean deleteLink(String name) throws IOException {
        try {
            socket.request(linkMessage(RTM_DELLINK, CHANGE, 0, 0, 0).attributeString(IFLA_IFNAME, name), "delete interface " + name);
            return true;
        } catch (NetlinkException e) {
            if (e.errno() == LibC.ENODEV) {
                return false;
            }
            throw e;
        }
    }

    public void addAddress(int index, int address, int prefixLength) throws IOException {
        NetlinkMessage message = new NetlinkMessage(RTM_NEWADDR, CREATE)
                .u8(AF_INET).u8(prefixLength).u8(0).u8(RT_SCOPE_UNIVERSE).u32(index)
                .attributeIpv4(IFA_LOCAL, address)
                .attributeIpv4(IFA_ADDRESS, address);
        socket.request(message, "add address to interface " + index);
    }

    public void addDefaultRoute(int gateway) throws IOException {
        NetlinkMessage message = new NetlinkMessage(RTM_NEWROUTE, CREATE)
                .u8(AF_INET).u8(0).u8(0).u8(0).u8(RT_TABLE_MAIN).u8(RTPROT_STATIC).u8(RT_SCOPE_UNIVERSE).u8(RTN_UNICAST).u32(0)
                .attributeIpv4(RTA_GATEWAY, gateway);
        socket.request(message, "add default route");
    }

    public List<LinkEntry> links() throws IOException {
        List<LinkEntry> links = new ArrayList<>();
        for (ByteBuffer message : socket.dump(linkMessage(RTM_GETLINK, NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_DUMP, 0, 0, 0), "list interfaces")) {
            int index = message.getInt(20);
            int flags = message.getInt(24);
            NetlinkAttributes attributes = NetlinkAttributes.parse(message.slice(32, message.limit() - 32));
            links.add(new LinkEntry(index, attributes.string(IFLA_IFNAME), (flags & IFF_UP) != 0, mac(attributes.value(IFLA_ADDRESS))));
        }
        return links;
    }

    public List<AddressEntry> ipv4Addresses() throws IOException {
        List<AddressEntry> addresses = new ArrayList<>();
        NetlinkMessage request = new NetlinkMessage(RTM_GETADDR, NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_DUMP).u8(AF_INET).u8(0).u8(0).u8(0).u32(0);
        for (ByteBuffer message : socket.dump(request, "list addresses")) {
            if ((message.get(16) & 0xff) != AF_INET) {
                continue;
            }
            int prefixLength = message.get(17) & 0xff;
            int index = message.getInt(20);
            NetlinkAttributes attributes = NetlinkAttributes.parse(message.slice(24, message.limit() - 24));
            int address = attributes.ipv4(IFA_LOCAL, attributes.ipv4(IFA_ADDRESS, 0));
            addresses.add(new AddressEntry(index, address, prefixLength));
        }
        return addresses;
    }

    /** Every IPv4 route of every table. */
    public List<RouteEntry> ipv4Routes() throws IOException {
        List<RouteEntry> routes = new ArrayList<>();
        NetlinkMessage request = new NetlinkMessage(RTM_GETROUTE, NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_DUMP)
                .u8(AF_INET).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u32(0);
        for (ByteBuffer message : socket.dump(request, "list routes")) {
            if ((message.get(16) & 0xff) != AF_INET) {
                continue;
            }
            int prefixLength = message.get(17) & 0xff;
            int table = message.get(20) & 0xff;
            int type = message.get(23) & 0xff;
            NetlinkAttributes attributes = NetlinkAttributes.parse(message.slice(28, message.limit() - 28));
            routes.add(new RouteEntry(attributes.ipv4(RTA_DST, 0), prefixLength, attributes.u32(RTA_TABLE, table), type,
                    attributes.u32(RTA_OIF, 0)));
        }
        return routes;
    }

    private static long mac(ByteBuffer address) {
        if (address == null || address.remaining() != 6) {
            return 0;
        }
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = (mac << 8) | (address.get(i) & 0xff);
        }
        return mac;
    }

    private static NetlinkMessage linkMessage(int type, int flags, int index, int ifFlags, int change) {
        return ifinfo(new NetlinkMessage(type, flags), index, ifFlags, change);
    }

    /** {@code struct ifinfomsg}: family, pad, type, index, flags, change. */
    private static NetlinkMessage ifinfo(NetlinkMessage message, int index, int ifFlags, int change) {
        return message.u8(AF_UNSPEC).u8(0).u16(0).u32(index).u32(ifFlags).u32(change);
    }

    @Override
    public void close() {
        socket.close();
    }
}
