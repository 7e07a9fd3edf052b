package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases for moving a sandbox between hosts, against a store that honours {@code If-None-Match: *} (s3proxy
 * behind {@link ConditionalPutProxy}) and against s3proxy 2.9.0 alone (which does not, under concurrency).
 */
class LeasesTest extends StoreTestBase {
    private ConditionalPutProxy proxy;

    @BeforeEach
    void startProxy() throws IOException {
        proxy = new ConditionalPutProxy(server.endpoint());
    }

    @AfterEach
    void stopProxy() {
        proxy.close();
    }

    private Host viaProxy(String name) throws IOException {
        return host(name, settings().withEndpoint(proxy.endpoint().toString()), CACHE_BYTES, HOST_CPU);
    }

    @Test
    void theProbeFindsConditionalWritesHonouredThroughTheProxy() throws IOException {
        ProbeResult probe = viaProxy("a").remote().probe();
        assertThat(probe.conditionalWrites()).as(probe.detail()).isEqualTo(ConditionalWrites.HONOURED);
        assertThat(probe.leasesSafe()).isTrue();
        assertThat(raw.list("probes/")).isEmpty();
    }

    @Test
    void aLeaseIsHeldByOneHostAndReleasedOnlyByIt() throws IOException {
        Leases a = viaProxy("a").remote().leases();
        Leases b = viaProxy("b").remote().leases();

        Lease taken = a.acquire("sb-1", "host-a");
        assertThat(taken.enforced()).isTrue();
        assertThat(b.holder("sb-1").map(Lease::hostId)).contains("host-a");
        assertThat(a.acquire("sb-1", "host-a").acquiredAt()).isEqualTo(taken.acquiredAt());

        assertThatThrownBy(() -> b.acquire("sb-1", "host-b")).isInstanceOf(LeaseHeldException.class).hasMessageContaining("host-a")
                .satisfies(e -> assertThat(((LeaseHeldException) e).lease().hostId()).isEqualTo("host-a"));
        assertThatThrownBy(() -> b.requireNotHeldByAnother("sb-1", "host-b")).isInstanceOf(LeaseHeldException.class);
        a.requireNotHeldByAnother("sb-1", "host-a");
        assertThatThrownBy(() -> b.release("sb-1", "host-b")).isInstanceOf(LeaseHeldException.class);
        assertThat(a.holder("sb-1")).isPresent();

        a.release("sb-1", "host-a");
        assertThat(a.holder("sb-1")).isEmpty();
        a.release("sb-1", "host-a"); // nothing to release: fine
        assertThat(b.acquire("sb-1", "host-b").hostId()).isEqualTo("host-b");
        assertThatThrownBy(() -> a.acquire("sb-1", "host-a")).isInstanceOf(LeaseHeldException.class).hasMessageContaining("host-b");
    }

    @Test
    void ofHostsAdoptingAtOnceExactlyOneGetsTheLease() throws Exception {
        int hosts = 6;
        List<Leases> leases = new ArrayList<>();
        for (int i = 0; i < hosts; i++) {
            leases.add(viaProxy("h" + i).remote().leases());
        }
        leases.getFirst().holder("sb-race"); // warm up
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Lease>> attempts = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(hosts)) {
            for (int i = 0; i < hosts; i++) {
                Leases mine = leases.get(i);
                String hostId = "host-" + i;
                attempts.add(threads.submit((Callable<Lease>) () -> {
                    start.await();
                    return mine.acquire("sb-race", hostId);
                }));
            }
            start.countDown();
            List<String> winners = new ArrayList<>();
            List<String> refusedNames = new ArrayList<>();
            for (Future<Lease> attempt : attempts) {
                try {
                    winners.add(attempt.get().hostId());
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(LeaseHeldException.class);
                    refusedNames.add(((LeaseHeldException) e.getCause()).lease().hostId());
                }
            }
            assertThat(winners).hasSize(1);
            assertThat(refusedNames).hasSize(hosts - 1).containsOnly(winners.getFirst());
            assertThat(leases.getFirst().holder("sb-race").map(Lease::hostId)).contains(winners.getFirst());
        }
    }

    @Test
    void withoutTheProxyS3proxyIsFoundRacyAndLeasesAreRefusedUnlessTurnedOff() throws IOException {
        Host direct = host("direct", settings(), CACHE_BYTES, HOST_CPU);
        ProbeResult probe = direct.remote().probe();
        System.out.println(server + " probe: " + probe);
        assertThat(probe.conditionalWrites()).as(probe.detail()).isEqualTo(ConditionalWrites.RACY);
        assertThatThrownBy(() -> direct.remote().leases().acquire("sb-1", "host-a")).isInstanceOf(LeasesUnavailableException.class)
                .hasMessageContaining("snapshot-store-leases").hasMessageContaining("racy");

        Host off = host("off", settings().withLeases(LeaseMode.OFF), CACHE_BYTES, HOST_CPU);
        Lease unenforced = off.remote().leases().acquire("sb-1", "host-a");
        assertThat(unenforced.enforced()).isFalse();
        assertThat(raw.list("leases/")).isEmpty();
        off.remote().leases().release("sb-1", "host-a");
    }
}
