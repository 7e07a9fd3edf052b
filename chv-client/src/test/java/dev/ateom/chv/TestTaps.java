package dev.ateom.chv;

import dev.ateom.network.os.NetNamespace;
import dev.ateom.network.os.NetNamespaces;
import dev.ateom.network.os.TapDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Real TAP devices, in a network namespace of the test's own, with the flags network slots give theirs. */
final class TestTaps implements AutoCloseable {
    private final String namespaceName;
    private final NetNamespace namespace;
    private final List<TapDevice> taps = new ArrayList<>();

    TestTaps(String namespaceName) throws IOException {
        this.namespaceName = namespaceName;
        NetNamespaces.create(namespaceName);
        this.namespace = NetNamespace.named(namespaceName);
    }

    /** A new TAP's descriptor (owned here). */
    int open() throws IOException {
        String name = "tap" + taps.size();
        TapDevice tap = namespace.call(() -> TapDevice.create(name));
        taps.add(tap);
        return tap.fd();
    }

    @Override
    public void close() throws IOException {
        taps.forEach(TapDevice::close);
        namespace.close();
        NetNamespaces.delete(namespaceName);
    }
}
