package dev.ateom.e2b;

import dev.ateom.microvm.extension.DaemonExtension;
import dev.ateom.microvm.extension.ExtensionContext;

import java.time.InstantSource;
import java.util.Optional;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/** Starts the E2B API and envd proxy when {@code --e2b-listen} is given, with the lifetime scheduler of its sandboxes. */
public final class E2bExtension implements DaemonExtension {
    private static final System.Logger LOG = System.getLogger(E2bExtension.class.getName());

    @Override
    public Optional<AutoCloseable> start(ExtensionContext context) {
        String listen = context.config().e2bListen();
        if (listen == null || listen.isBlank()) return Optional.empty();
        ListenAddress address = ListenAddress.parse(listen);
        if (!address.isLoopback()) {
            LOG.log(WARNING, "e2b: listening on " + address.host() + ", not loopback: anyone who reaches it can use envd of sandboxes "
                    + "that are not secure; put TLS and a firewall in front");
        }
        ApiKeys keys = ApiKeys.load(context.token(), context.config().e2bKeysFile());
        E2bService service = new E2bService(context.sandboxes(), context.templates(), E2bSandboxStore.open(context.config().stateDir()),
                InstantSource.system());
        Lifetimes lifetimes = new Lifetimes(service, InstantSource.system());
        E2bServer server = new E2bServer(address, keys, service);
        lifetimes.start();
        LOG.log(INFO, "e2b: API and envd proxy on http://" + address.host() + ":" + server.port());
        return Optional.of(() -> {
            lifetimes.close();
            server.close();
        });
    }
}
