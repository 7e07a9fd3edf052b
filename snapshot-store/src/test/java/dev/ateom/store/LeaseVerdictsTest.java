package dev.ateom.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store's one lease verdict (UNKNOWN → HONOURED → not honoured, never back but by an operator's reset), on s3proxy
 * behind the proxy that makes its conditional writes atomic (so the probe finds HONOURED), with a second front that lets
 * two conditional writes of one lease both win (a store racy only at times, which the probe can miss).
 */
class LeaseVerdictsTest extends StoreTestBase {
    private ConditionalPutProxy honouring;
    private ConditionalPutProxy leasesRacy;

    @BeforeEach
    void startFronts() throws IOException {
        honouring = new ConditionalPutProxy(server.endpoint());
        leasesRacy = new ConditionalPutProxy(server.endpoint());
    }

    @AfterEach
    void stopFronts() {
        honouring.close();
        leasesRacy.close();
    }

    private Host via(ConditionalPutProxy front, String name) throws IOException {
        return host(name, settings().withEndpoint(front.endpoint().toString()), CACHE_BYTES, HOST_CPU);
    }

    @Test
    void theFirstHonouredFindingIsRecordedConditionallyAndEveryLaterHostKeepsItsRecorder() throws IOException {
        Host a = via(honouring, "a");
        Host b = via(honouring, "b");
        assertThat(a.remote().leaseVerdicts().read()).isEqualTo(LeaseVerdict.UNKNOWN);

        LeaseVerdicts.Established first = a.remote().leaseVerdicts().establish("host-a");
        assertThat(first.verdict().conditionalWrites()).isEqualTo(ConditionalWrites.HONOURED);
        assertThat(first.verdict().recordedBy()).isEqualTo("host-a");
        System.out.println("probe through the honouring proxy: " + first.probe().orElseThrow().cost());

        LeaseVerdicts.Established second = b.remote().leaseVerdicts().establish("host-b");
        assertThat(second.probe()).as("HONOURED is not final: every start probes again").isPresent();
        assertThat(second.verdict()).isEqualTo(first.verdict());
        assertThat(raw.list("lease-verdict/")).hasSize(1);
        assertThat(b.remote().leases().acquire("sb-1", "host-b").hostId()).isEqualTo("host-b");
    }

    @Test
    void aNotHonouredFindingIsFinalWhateverOrderTheHostsWriteInUntilAnOperatorResetsIt() throws IOException {
        Host a = via(honouring, "a");
        Host b = via(honouring, "b");
        a.remote().leaseVerdicts().establish("host-a");
        LeaseVerdict racy = b.remote().leaseVerdicts().record("host-b", ConditionalWrites.RACY, "host-b saw two winners");
        assertThat(racy.conditionalWrites()).isEqualTo(ConditionalWrites.RACY);
        assertThat(racy.recordedBy()).isEqualTo("host-b");

        // a host that finds HONOURED afterwards (or at the same time) cannot undo it: it writes another key
        assertThat(a.remote().leaseVerdicts().record("host-a", ConditionalWrites.HONOURED, "probe passed")).isEqualTo(racy);
        LeaseVerdicts.Established again = a.remote().leaseVerdicts().establish("host-a");
        assertThat(again.probe()).as("a final verdict is not probed again").isEmpty();
        assertThat(again.verdict()).isEqualTo(racy);
        assertThatThrownBy(() -> a.remote().leases().acquire("sb-1", "host-a")).isInstanceOf(LeasesUnavailableException.class)
                .hasMessageContaining("host-b saw two winners");

        // an earlier finding stays the one shown
        b.remote().leaseVerdicts().record("host-c", ConditionalWrites.IGNORED, "later");
        assertThat(a.remote().leaseVerdicts().read()).isEqualTo(racy);

        assertThat(a.remote().leaseVerdicts().reset()).isEqualTo(3);
        assertThat(a.remote().leaseVerdicts().read()).isEqualTo(LeaseVerdict.UNKNOWN);
        assertThat(a.remote().leaseVerdicts().establish("host-a").verdict().conditionalWrites()).isEqualTo(ConditionalWrites.HONOURED);
        assertThat(a.remote().leases().acquire("sb-1", "host-a").hostId()).isEqualTo("host-a");
    }

    @Test
    void aVerdictObjectThatCannotBeReadCountsAsNotHonoured() throws IOException {
        Host a = via(honouring, "a");
        raw.put("lease-verdict/honoured", "not json".getBytes(StandardCharsets.US_ASCII));
        LeaseVerdict verdict = a.remote().leaseVerdicts().read();
        assertThat(verdict.leasesSafe()).isFalse();
        assertThat(verdict.isFinal()).isTrue();
        assertThat(verdict.detail()).contains("cannot be trusted");
    }

    @Test
    void aHostThatSeesTwoWinnersOfOneLeaseRecordsTheStoreRacyForEveryHost() throws Exception {
        // the verdict says HONOURED (the probe's keys are honoured), but this front answers both conditional writes of one
        // lease with 200 after writing both, one after the other: a race the probe missed, as a store racy only at times
        via(honouring, "prober").remote().leaseVerdicts().establish("prober");
        CyclicBarrier bothArrived = new CyclicBarrier(2);
        CyclicBarrier bothWritten = new CyclicBarrier(2);
        Object writes = new Object();
        leasesRacy.answerInstead((exchange, body) -> {
            if (!exchange.getRequestMethod().equals("PUT") || !exchange.getRequestURI().getRawPath().endsWith("/leases/sb-race")) {
                return false;
            }
            try {
                bothArrived.await(30, TimeUnit.SECONDS);
                synchronized (writes) {
                    raw.put("leases/sb-race", body);
                }
                bothWritten.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new IOException("the two lease writers did not meet", e);
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
            return true;
        });
        List<Leases> leases = List.of(via(leasesRacy, "h0").remote().leases(), via(leasesRacy, "h1").remote().leases());
        List<String> winners = new ArrayList<>();
        List<Throwable> refusals = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<Lease>> attempts = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Leases mine = leases.get(i);
                String hostId = "host-" + i;
                attempts.add(threads.submit((Callable<Lease>) () -> mine.acquire("sb-race", hostId)));
            }
            for (Future<Lease> attempt : attempts) {
                try {
                    winners.add(attempt.get().hostId());
                } catch (ExecutionException e) {
                    refusals.add(e.getCause());
                }
            }
        }
        assertThat(winners).as("the host whose write was kept").hasSize(1);
        assertThat(refusals).singleElement().isInstanceOf(LeasesUnavailableException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains("two writers won").contains("leases/sb-race"));

        Host other = via(honouring, "other");
        LeaseVerdict verdict = other.remote().leaseVerdicts().read();
        assertThat(verdict.conditionalWrites()).isEqualTo(ConditionalWrites.RACY);
        assertThat(verdict.recordedBy()).isNotEqualTo(winners.getFirst()).startsWith("host-");
        assertThatThrownBy(() -> other.remote().leases().acquire("sb-other", "host-9")).isInstanceOf(LeasesUnavailableException.class);
        assertThat(other.remote().leaseVerdicts().establish("host-9").probe()).as("final: not probed again").isEmpty();
    }
}
