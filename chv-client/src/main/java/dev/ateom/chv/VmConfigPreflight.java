package dev.ateom.chv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Refuses what CHV v54 mishandles, before it reaches CHV: two {@code fs} entries on one socket (CHV hangs its
 * whole API at boot), duplicate tags (CHV boots a guest that cannot tell the shares apart), and
 * vhost-user sockets that do not exist or have no listener (CHV blocks boot/restore for 60 s, then fails).
 */
final class VmConfigPreflight {
    private VmConfigPreflight() {
    }

    /** Static checks of a config about to be created. */
    static void checkConfig(String endpoint, List<FsConfig> fs, VsockConfig vsock) {
        Set<String> sockets = new HashSet<>();
        Set<String> tags = new HashSet<>();
        for (int i = 0; i < fs.size(); i++) {
            FsConfig entry = fs.get(i);
            if (entry.tag() == null || entry.tag().isEmpty()) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "].tag is empty");
            }
            if (entry.socket() == null || entry.socket().isEmpty()) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "] (tag " + entry.tag() + ").socket is empty");
            }
            if (!tags.add(entry.tag())) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "].tag '" + entry.tag() + "' is used twice");
            }
            if (!sockets.add(normal(entry.socket()))) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "] (tag " + entry.tag() + ").socket " + entry.socket()
                        + " is used by another fs entry (CHV v54 hangs its API on this)");
            }
        }
        if (vsock != null && vsock.socket() != null && sockets.contains(normal(vsock.socket()))) {
            throw new ChvConfigRejectedException(endpoint, "vsock.socket " + vsock.socket() + " is also an fs socket");
        }
    }

    /** Every fs socket exists and has a listener right now. */
    static void checkListeners(String endpoint, List<FsConfig> fs) {
        if (fs.isEmpty()) {
            return;
        }
        Set<String> listening = ListeningSockets.current();
        for (int i = 0; i < fs.size(); i++) {
            FsConfig entry = fs.get(i);
            Path socket = Path.of(entry.socket());
            if (!Files.exists(socket)) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "] (tag " + entry.tag() + ").socket " + socket
                        + " does not exist (CHV would wait 60 s for it)");
            }
            if (!listening.contains(socket.toString()) && !listening.contains(normal(entry.socket())) && !linkOfListener(socket, listening)) {
                throw new ChvConfigRejectedException(endpoint, "fs[" + i + "] (tag " + entry.tag() + ").socket " + socket
                        + " has no listener (stale socket file or back-end gone; CHV would wait 60 s)");
            }
        }
    }

    /**
     * Whether {@code socket} is another name (a hard link) of a socket file a listener was bound to: the kernel's table
     * lists only the bound name, while a connect reaches the listener through any name of the file, as CHV's does.
     */
    private static boolean linkOfListener(Path socket, Set<String> listening) {
        for (String bound : listening) {
            try {
                if (bound.startsWith("/") && Files.isSameFile(Path.of(bound), socket)) return true;
            } catch (IOException | RuntimeException e) {
                // gone meanwhile, or not a path at all (abstract names are listed with '@'): not this one
            }
        }
        return false;
    }

    /** CHV's {@code RestoreConfig::validate}: each descriptor-backed net device needs its {@code net_fds} entry. */
    static void checkRestoredNets(String endpoint, List<NetConfig> nets, List<RestoredNetConfig> netFds) {
        for (NetConfig net : nets) {
            if (!net.descriptorBacked()) {
                continue;
            }
            RestoredNetConfig entry = netFds.stream().filter(n -> n.id().equals(net.id())).findFirst().orElse(null);
            if (entry == null) {
                throw new ChvConfigRejectedException(endpoint, "net " + net.id() + " was backed by descriptors: net_fds must name it"
                        + " with " + net.fds().size() + " new TAP descriptor(s) (CHV: RestoreMissingRequiredNetId)");
            }
            if (entry.numFds() != net.fds().size()) {
                throw new ChvConfigRejectedException(endpoint, "net_fds gives net " + net.id() + " " + entry.numFds()
                        + " descriptor(s), the snapshot's device had " + net.fds().size() + " (CHV: RestoreNetFdCountMismatch)");
            }
        }
    }

    private static String normal(String path) {
        return Path.of(path).toAbsolutePath().normalize().toString();
    }
}
