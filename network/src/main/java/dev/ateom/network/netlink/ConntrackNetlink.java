package dev.ateom.network.netlink;

import dev.ateom.network.os.LibC;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Connection tracking over ctnetlink, in the calling thread's network namespace: deletes the IPv4 entries that
 * involve an address, so a slot address handed to the next sandbox inherits no NAT binding or established flow.
 */
public final class ConntrackNetlink implements AutoCloseable {
    private static final int NFNL_SUBSYS_CTNETLINK = 1;
    private static final int IPCTNL_MSG_CT_GET = 1;
    private static final int IPCTNL_MSG_CT_DELETE = 2;
    private static final int AF_INET = 2;
    private static final int NFNETLINK_V0 = 0;

    private static final int CTA_TUPLE_ORIG = 1;
    private static final int CTA_TUPLE_REPLY = 2;
    private static final int CTA_ZONE = 18;
    private static final int CTA_TUPLE_IP = 1;
    private static final int CTA_IP_V4_SRC = 1;
    private static final int CTA_IP_V4_DST = 2;

    private final NetlinkSocket socket;

    private ConntrackNetlink(NetlinkSocket socket) {
        this.socket = socket;
    }

    public static ConntrackNetlink open() throws IOException {
        return new ConntrackNetlink(NetlinkSocket.open(NetlinkSocket.NETLINK_NETFILTER));
    }

    /** Deletes every IPv4 entry whose original or reply tuple has {@code address} as source or destination. */
    public int deleteInvolving(int address) throws IOException {
        List<NetlinkAttributes> doomed = new ArrayList<>();
        for (ByteBuffer message : socket.dump(request(IPCTNL_MSG_CT_GET, NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_DUMP), "list conntrack entries")) {
            NetlinkAttributes entry = NetlinkAttributes.parse(message.slice(20, message.limit() - 20));
            if (involves(entry.nested(CTA_TUPLE_ORIG), address) || involves(entry.nested(CTA_TUPLE_REPLY), address)) {
                doomed.add(entry);
            }
        }
        int deleted = 0;
        for (NetlinkAttributes entry : doomed) {
            NetlinkMessage delete = request(IPCTNL_MSG_CT_DELETE, NetlinkSocket.NLM_F_REQUEST | NetlinkSocket.NLM_F_ACK)
                    .rawAttribute(entry.raw(CTA_TUPLE_ORIG));
            if (entry.has(CTA_ZONE)) {
                delete.rawAttribute(entry.raw(CTA_ZONE));
            }
            try {
                socket.request(delete, "delete conntrack entry");
                deleted++;
            } catch (NetlinkException e) {
                if (e.errno() != LibC.ENOENT) {
                    throw e; // ENOENT: it timed out meanwhile
                }
            }
        }
        return deleted;
    }

    private static boolean involves(NetlinkAttributes tuple, int address) {
        NetlinkAttributes ip = tuple.nested(CTA_TUPLE_IP);
        return (ip.has(CTA_IP_V4_SRC) && ip.ipv4(CTA_IP_V4_SRC, 0) == address)
                || (ip.has(CTA_IP_V4_DST) && ip.ipv4(CTA_IP_V4_DST, 0) == address);
    }

    private static NetlinkMessage request(int type, int flags) {
        // struct nfgenmsg: family, version, res_id (big-endian, 0)
        return new NetlinkMessage((NFNL_SUBSYS_CTNETLINK << 8) | type, flags).u8(AF_INET).u8(NFNETLINK_V0).u16(0);
    }

    @Override
    public void close() {
        socket.close();
    }
}
