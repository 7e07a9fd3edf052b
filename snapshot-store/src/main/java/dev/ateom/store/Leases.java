package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which host runs a sandbox that moves between hosts. A lease is created with {@code If-None-Match: *}, so of two
 * hosts adopting the same sandbox exactly one gets it, which needs a store that honours conditional writes: the store's
 * lease verdict ({@link LeaseVerdicts}) is read before every take, and a take refused unless it is HONOURED. A host that
 * took a lease reads it back: if another host's lease is there, the store let two writers win, and this host records it
 * RACY for the whole fleet. With {@link LeaseMode#OFF} nothing is taken and nothing is checked.
 */
public final class Leases {
    private static final Pattern SANDBOX_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private static final int ATTEMPTS = 3;

    private final S3Objects objects;
    private final StoreKeys keys;
    private final LeaseMode mode;
    private final LeaseVerdicts verdicts;
    private final Clock clock;

    Leases(S3Objects objects, StoreKeys keys, LeaseMode mode, LeaseVerdicts verdicts, Clock clock) {
        this.objects = objects;
        this.keys = keys;
        this.mode = mode;
        this.verdicts = verdicts;
        this.clock = clock;
    }

    public LeaseMode mode() {
        return mode;
    }

    /**
     * Takes the lease of a sandbox for this host; taking one this host already holds returns it.
     *
     * @throws LeaseHeldException         another host holds it (the exception names the holder)
     * @throws LeasesUnavailableException leases are enforced but the store's lease verdict is not HONOURED (or became RACY
     *                                    now: another host's lease was found where this one was just created)
     */
    public Lease acquire(String sandboxId, String hostId) throws IOException {
        requireValid(sandboxId);
        Lease wanted = new Lease(sandboxId, hostId, clock.instant(), mode == LeaseMode.ENFORCED);
        if (mode == LeaseMode.OFF) {
            return wanted;
        }
        LeaseVerdict verdict = verdicts.current(hostId); // probes if no host recorded a verdict yet
        if (!verdict.leasesSafe()) {
            throw new LeasesUnavailableException(verdict);
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            if (objects.putIfAbsent(keys.lease(sandboxId), toBytes(wanted))) {
                Optional<Lease> kept = holder(sandboxId);
                if (kept.isPresent() && kept.get().hostId().equals(hostId)) {
                    return wanted;
                }
                if (kept.isPresent()) {
                    throw new LeasesUnavailableException(verdicts.record(hostId, ConditionalWrites.RACY, "host " + hostId
                            + " created leases/" + sandboxId + " with If-None-Match: * and was answered 200, yet the lease then named host "
                            + kept.get().hostId() + ": two writers won"));
                }
                continue; // created and gone at once: a release by its holder cannot be ours, so ask again
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
        Optional<byte[]> bytes = objects.get(keys.lease(sandboxId), S3Objects.SMALL_OBJECT_BYTES);
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
