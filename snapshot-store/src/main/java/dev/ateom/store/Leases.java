package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Which host runs a sandbox that moves between hosts. A lease is created with {@code If-None-Match: *}, so of two
 * hosts adopting the same sandbox exactly one gets it, which needs a store that honours conditional writes (see
 * {@link StoreProbe}); with {@link LeaseMode#OFF} nothing is taken and nothing is checked.
 */
public final class Leases {
    private static final Pattern SANDBOX_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private static final int ATTEMPTS = 3;

    private final S3Objects objects;
    private final StoreKeys keys;
    private final LeaseMode mode;
    private final Supplier<ProbeResult> probe;
    private final Clock clock;

    Leases(S3Objects objects, StoreKeys keys, LeaseMode mode, Supplier<ProbeResult> probe, Clock clock) {
        this.objects = objects;
        this.keys = keys;
        this.mode = mode;
        this.probe = probe;
        this.clock = clock;
    }

    public LeaseMode mode() {
        return mode;
    }

    /**
     * Takes the lease of a sandbox for this host; taking one this host already holds returns it.
     *
     * @throws LeaseHeldException         another host holds it (the exception names the holder)
     * @throws LeasesUnavailableException leases are enforced but the store does not honour conditional writes
     */
    public Lease acquire(String sandboxId, String hostId) throws IOException {
        requireValid(sandboxId);
        Lease wanted = new Lease(sandboxId, hostId, clock.instant(), mode == LeaseMode.ENFORCED);
        if (mode == LeaseMode.OFF) {
            return wanted;
        }
        ProbeResult result;
        try {
            result = probe.get(); // runs the probe if none has yet (the store was unreachable at start)
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (!result.leasesSafe()) {
            throw new LeasesUnavailableException(result);
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (objects.putIfAbsent(keys.lease(sandboxId), toBytes(wanted))) {
                return wanted;
            }
            Optional<Lease> holder = holder(sandboxId);
            if (holder.isPresent()) {
                if (holder.get().hostId().equals(hostId)) {
                    return holder.get();
                }
                throw new LeaseHeldException(holder.get());
            }
            // released between our PUT and GET: try again
        }
        throw new StoreException("lease of sandbox " + sandboxId + " changed hands " + ATTEMPTS + " times while being taken; try again");
    }

    /** Gives up this host's lease; a lease held by another host is left alone and reported. No lease: nothing to do. */
    public void release(String sandboxId, String hostId) throws IOException {
        requireValid(sandboxId);
        if (mode == LeaseMode.OFF) {
            return;
        }
        Optional<Lease> holder = holder(sandboxId);
        if (holder.isEmpty()) {
            return;
        }
        if (!holder.get().hostId().equals(hostId)) {
            throw new LeaseHeldException(holder.get());
        }
        objects.delete(keys.lease(sandboxId));
    }

    /** For a host about to run a sandbox it did not adopt (resume): refuses if another host holds its lease. */
    public void requireNotHeldByAnother(String sandboxId, String hostId) throws IOException {
        requireValid(sandboxId);
        if (mode == LeaseMode.OFF) {
            return;
        }
        Optional<Lease> holder = holder(sandboxId);
        if (holder.isPresent() && !holder.get().hostId().equals(hostId)) {
            throw new LeaseHeldException(holder.get());
        }
    }

    public Optional<Lease> holder(String sandboxId) throws IOException {
        requireValid(sandboxId);
        Optional<byte[]> bytes = objects.get(keys.lease(sandboxId));
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        try {
            StoredLease stored = RemoteManifestCodec.JSON.readValue(bytes.get(), StoredLease.class);
            return Optional.of(new Lease(stored.sandboxId(), stored.hostId(), stored.acquiredAt(), true));
        } catch (IOException | IllegalArgumentException e) {
            throw new RemoteFormatException("lease of sandbox " + sandboxId + " is not a lease: " + e.getMessage(), e);
        }
    }

    /** The lease object's JSON. */
    @JsonPropertyOrder({"sandboxId", "hostId", "acquiredAt"})
    private record StoredLease(String sandboxId, String hostId, Instant acquiredAt) {
    }

    private static byte[] toBytes(Lease lease) {
        try {
            return RemoteManifestCodec.JSON.writeValueAsBytes(new StoredLease(lease.sandboxId(), lease.hostId(), lease.acquiredAt()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("lease cannot be written as JSON", e);
        }
    }

    private static void requireValid(String sandboxId) {
        if (sandboxId == null || !SANDBOX_ID.matcher(sandboxId).matches()) {
            throw new IllegalArgumentException("invalid sandbox id '" + sandboxId + "'");
        }
    }
}
