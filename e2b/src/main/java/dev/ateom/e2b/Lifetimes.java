package dev.ateom.e2b;

import dev.ateom.microvm.sandbox.BusyException;
import dev.ateom.microvm.sandbox.SandboxState;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Acts on E2B deadlines: one virtual thread looks every {@link #TICK} at the sandboxes whose {@code endAt} passed and
 * that run, and kills them (or pauses them with autoPause) through {@link E2bService#expire}, which looks again under
 * the daemon's own sandbox lock. Deadlines are on disk, so one that passed while no daemon ran is acted on at the
 * first tick after a start. A busy sandbox is tried at the next tick; a failure again after {@link #RETRY}.
 */
final class Lifetimes implements AutoCloseable {
    static final Duration TICK = Duration.ofMillis(250);
    private static final Duration RETRY = Duration.ofSeconds(10);
    private static final System.Logger LOG = System.getLogger(Lifetimes.class.getName());

    private final E2bService service;
    private final InstantSource clock;
    private final Map<String, Instant> failedUntil = new ConcurrentHashMap<>();
    private final Thread thread;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile boolean running = true;

    Lifetimes(E2bService service, InstantSource clock) {
        this.service = service;
        this.clock = clock;
        this.thread = Thread.ofVirtual().name("e2b-lifetimes").unstarted(this::loop);
    }

    void start() { thread.start(); }

    private void loop() {
        while (running) {
            try {
                if (stop.await(TICK.toMillis(), TimeUnit.MILLISECONDS)) return;
            } catch (InterruptedException e) {
                return;
            }
            try {
                tick();
            } catch (RuntimeException e) {
                LOG.log(WARNING, "e2b: lifetime pass failed: " + e);
            }
        }
    }

    private void tick() {
        Instant now = clock.instant();
        for (E2bService.Current current : service.all()) {
            if (!running) return;
            String id = current.sandbox().sandboxID();
            if (current.record().state() != SandboxState.RUNNING || now.isBefore(current.sandbox().endAt()) || service.starting(id)) continue;
            Instant retry = failedUntil.get(id);
            if (retry != null && now.isBefore(retry)) continue;
            try {
                service.expire(id);
                failedUntil.remove(id);
            } catch (BusyException | E2bError e) {
                // an operation runs (or the sandbox just went): looked at again next tick
            } catch (RuntimeException e) {
                LOG.log(WARNING, "e2b: sandbox " + id + " reached its timeout but could not be stopped: " + e.getMessage());
                failedUntil.put(id, now.plus(RETRY));
            }
        }
    }

    @Override
    public void close() {
        // no interrupt: a kill or pause under way finishes rather than being cut off mid-operation
        running = false;
        stop.countDown();
        try {
            thread.join(Duration.ofSeconds(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
