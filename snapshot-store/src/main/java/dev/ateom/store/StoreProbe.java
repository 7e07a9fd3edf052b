package dev.ateom.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * Finds out whether the store honours {@code If-None-Match: *}: creates a fresh probe key conditionally twice
 * (the second must get 412 and leave the first content), then lets several writers race for fresh keys a few
 * times (exactly one may win each). The race part can miss a store that is racy only rarely; it did catch
 * s3proxy 2.9.0, whose check and write are not atomic. Every probe key is deleted afterwards.
 */
final class StoreProbe {
    static final int RACERS = 8;
    static final int DEFAULT_ROUNDS = 4;

    private final S3Objects objects;
    private final StoreKeys keys;
    private final int rounds;

    StoreProbe(S3Objects objects, StoreKeys keys, int rounds) {
        this.objects = objects;
        this.keys = keys;
        this.rounds = rounds;
    }

    ProbeResult run() throws IOException {
        String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        List<String> written = new ArrayList<>();
        try {
            String key = keys.probe(run + "-sequential");
            written.add(key);
            byte[] first = "first".getBytes(StandardCharsets.US_ASCII);
            try {
                if (!objects.putIfAbsent(key, first)) {
                    return new ProbeResult(ConditionalWrites.REFUSED, "a conditional PUT of a fresh key was answered 412");
                }
            } catch (StoreRequestException e) {
                if (e.status() == 400 || e.status() == 501) {
                    return new ProbeResult(ConditionalWrites.REFUSED, "a PUT with If-None-Match: * was rejected: " + e.getMessage());
                }
                throw e;
            }
            if (objects.putIfAbsent(key, "second".getBytes(StandardCharsets.US_ASCII))) {
                Optional<byte[]> now = objects.get(key);
                boolean overwritten = now.isPresent() && new String(now.get(), StandardCharsets.US_ASCII).equals("second");
                return new ProbeResult(ConditionalWrites.IGNORED, "a second PUT with If-None-Match: * of an existing key was answered 200"
                        + (overwritten ? " and overwrote it" : ""));
            }
            for (int round = 0; round < rounds; round++) {
                String raceKey = keys.probe(run + "-race-" + round);
                written.add(raceKey);
                int winners = race(raceKey);
                if (winners != 1) {
                    return new ProbeResult(ConditionalWrites.RACY, winners + " of " + RACERS
                            + " concurrent PUTs with If-None-Match: * of one fresh key were answered 200");
                }
            }
            return new ProbeResult(ConditionalWrites.HONOURED, "a second conditional PUT got 412, and of " + RACERS
                    + " concurrent ones exactly one won, " + rounds + " times");
        } finally {
            for (String key : written) {
                objects.delete(key);
            }
        }
    }

    private int race(String key) throws IOException {
        AtomicInteger winners = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> racers = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(RACERS)) {
            for (int i = 0; i < RACERS; i++) {
                byte[] content = ("racer-" + i).getBytes(StandardCharsets.US_ASCII);
                racers.add(threads.submit(() -> {
                    start.await();
                    if (objects.putIfAbsent(key, content)) {
                        winners.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> racer : racers) {
                try {
                    racer.get();
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
        }
        return winners.get();
    }
}
