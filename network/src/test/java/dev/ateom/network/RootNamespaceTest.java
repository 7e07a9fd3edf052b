package dev.ateom.network;

import dev.ateom.network.os.NetNamespace;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slots whose host side is the real host namespace (the test JVM's own, like the daemon's), next to whatever else
 * runs there (Docker's rules on CI): the daemon's table coexists with them and a published port answers on the real
 * loopback. The pool is a random /24 of 100.72.0.0/16 that collides with nothing here (retried when it does), the
 * prefix is random: concurrent runs never meet.
 */
class RootNamespaceTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static String prefix;
    private static NetworkSlots slots;

    @BeforeAll
    static void openInTheRealHost() {
        prefix = TestNetwork.randomPrefix();
        NetworkConfigException last = null;
        for (int attempt = 0; attempt < 5 && slots == null; attempt++) {
            Ipv4Cidr pool = Ipv4Cidr.parse("100.72." + RANDOM.nextInt(256) + ".0/24");
            try {
                slots = NetworkSlots.open(NetworkConfig.defaults().withPrefix(prefix).withPool(pool).withReadySlots(0), Set.of());
            } catch (NetworkConfigException e) {
                last = e;
            }
        }
        if (slots == null) {
            throw last;
        }
    }

    @AfterAll
    static void close() throws IOException {
        slots.close();
        assertThat(TestNetwork.leftovers(prefix)).isEmpty();
    }

    @Test
    void aPublishedPortAnswersOnTheRealLoopback() throws IOException {
        Slot slot = slots.acquire("sbx-root", new NetworkPolicy(EgressPolicy.DEFAULT, List.of(PortRequest.guest(8080))));
        try (FakeGuest guest = FakeGuest.attach(slot, prefix + "-g1")) {
            guest.serveHttp(8080, "through the real host");
            int hostPort = slot.publishedPorts().getFirst().hostPort();
            try (NetNamespace own = NetNamespace.ofCurrentThread()) {
                String answer = own.call(() -> HttpGet.fetch(Ipv4Address.parse("127.0.0.1"), hostPort, "/"));
                assertThat(HttpGet.body(answer)).isEqualTo("through the real host");
            }
        } finally {
            slots.release(slot);
        }
    }
}
