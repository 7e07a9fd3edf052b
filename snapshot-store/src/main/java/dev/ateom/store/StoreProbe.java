package dev.ateom.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finds out whether the store honours {@code If-None-Match: *}: creates a fresh probe key conditionally twice (the
 * second must get 412 and leave the first content), then lets {@link #RACERS} writers race for a fresh key, round after
 * round: exactly one may win each, and the key must then hold the winner's bytes. It stops at the first round that
 * breaks this. A store whose check and write are not atomic lets several writers win in some rounds only (S3Mock 4.11:
 * in 5-9 of 10 rounds of 8 writers; s3proxy 2.9.0 likewise), so the probe runs enough rounds of enough writers that
 * such a store passes them all with negligible odds; a store racy only rarely can still pass, which is why a host that
 * ever sees two winners records the store RACY for every host ({@link LeaseVerdicts}). Every probe key is deleted.
 */
final class StoreProbe {
    static final int RACERS = 16;
    static final int DEFAULT_ROUNDS = 20;

    private final S3Objects objects;
    private final StoreKeys keys;
    private final int rounds;
    private final AtomicInteger requests = new AtomicInteger();

    StoreProbe(S3Objects objects, StoreKeys keys, int rounds) {
        this.objects = objects;
        this.keys = keys;
        this.rounds = rounds;
    }

    ProbeResult run() throws IOException {
        long started = System.nanoTime();
        String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        List<String> written = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(RACERS)) {
            Finding finding = probe(run, written, threads);
            return new ProbeResult(finding.result(), finding.detail(), requests.get(), Duration.ofNanos(System.nanoTime() - started));
        } finally {
            for (String key : written) {
                objects.delete(key);
            }
        }
    }

    private record Finding(ConditionalWrites result, String detail) {
    }

    private Finding probe(String run, List<String> written, ExecutorService threads) throws IOException {
        String key = keys.probe(run + "-sequential");
        written.add(key);
        try {
            if (!putIfAbsent(key, "first".getBytes(StandardCharsets.US_ASCII))) {
                return new Finding(ConditionalWrites.REFUSED, "a conditional PUT of a fresh key was answered 412");
            }
        } catch (StoreRequestException e) {
            if (e.status() == 400 || e.status() == 501) {
                return new Finding(ConditionalWrites.REFUSED, "a PUT with If-None-Match: * was rejected: " + e.getMessage());
            }
            throw e;
        }
        if (putIfAbsent(key, "second".getBytes(StandardCharsets.US_ASCII))) {
            Optional<byte[]> now = get(key);
            boolean overwritten = now.isPresent() && new String(now.get(), StandardCharsets.US_ASCII).equals("second");
            return new Finding(ConditionalWrites.IGNORED, "a second PUT with If-None-Match: * of an existing key was answered 200"
                    + (overwritten ? " and overwrote it" : ""));
        }
        for (int round = 0; round < rounds; round++) {
            String raceKey = keys.probe(run + "-race-" + round);
            written.add(raceKey);
            Optional<String> broken = race(raceKey, threads);
            if (broken.isPresent()) {
                return new Finding(ConditionalWrites.RACY, "in round " + (round + 1) + " of " + RACERS
                        + " concurrent PUTs with If-None-Match: * of one fresh key, " + broken.get());
            }
        }
        return new Finding(ConditionalWrites.HONOURED, "a second conditional PUT got 412, and of " + RACERS
                + " concurrent ones exactly one won and was kept, " + rounds + " times");
    }

    /** One round; what went wrong in it, if anything. */
    private Optional<String> race(String key, ExecutorService threads) throws IOException {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> racers = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            byte[] content = ("racer-" + i).getBytes(StandardCharsets.US_ASCII);
            contents.add(content);
            racers.add(threads.submit(() -> {
                start.await();
                return putIfAbsent(key, content);
            }));
        }
        start.countDown();
        List<Integer> winners = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            try {
                if (racers.get(i).get()) {
                    winners.add(i);
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IOException("probe writer failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while probing the store");
            }
        }
        if (winners.size() != 1) {
            return Optional.of(winners.size() + " were answered 200");
        }
        byte[] kept = get(key).orElse(null);
        if (kept == null || !Arrays.equals(kept, contents.get(winners.getFirst()))) {
            return Optional.of("one was answered 200 but the key then held " + (kept == null ? "nothing" : "another writer's bytes"));
        }
        return Optional.empty();
    }

    private boolean putIfAbsent(String key, byte[] content) throws StoreException {
        requests.incrementAndGet();
        return objects.putIfAbsent(key, content);
    }

    private Optional<byte[]> get(String key) throws StoreException {
        requests.incrementAndGet();
        return objects.get(key, S3Objects.SMALL_OBJECT_BYTES);
    }
}
