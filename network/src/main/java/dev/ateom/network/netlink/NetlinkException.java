package dev.ateom.network.netlink;

import dev.ateom.network.os.LibC;
import java.io.IOException;

/** The kernel refused a netlink request; {@link #errno()} says why (positive, e.g. 17 = EEXIST). */
public final class NetlinkException extends IOException {
    private final int errno;

    NetlinkException(String operation, int errno, String kernelMessage) {
        super(operation + ": " + LibC.errnoName(errno) + (kernelMessage == null || kernelMessage.isEmpty() ? "" : " (" + kernelMessage + ")"));
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
