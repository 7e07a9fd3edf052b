package dev.ateom.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One lease verdict per store, shared by every host and sticky: whether the store's conditional writes can be trusted
 * to give a lease to one host only. It lives in the store, beside {@code leases/}, as objects under
 * {@code lease-verdict/}:
 * <ul>
 *   <li>{@code honoured}: written with {@code If-None-Match: *} by the first host whose probe found conditional writes
 *       HONOURED (a later one finds it there and leaves it: the first recorder stays);</li>
 *   <li>{@code not-honoured-<host>-<random>}: one per finding of a store that is not (RACY, IGNORED, REFUSED), written
 *       unconditionally under a key of its own, so that no other host's write, conditional or not, can replace it.</li>
 * </ul>
 * The verdict is the earliest not-honoured finding if there is any, else HONOURED if recorded, else UNKNOWN. So it only
 * moves UNKNOWN → HONOURED → not honoured (or straight to not honoured), never back: a probe that finds a store
 * HONOURED cannot undo another host's not-honoured finding, whatever the order in which the two hosts write (they never
 * write the same key), and a not-honoured verdict is final until an operator deletes them all ({@link #reset}). A host
 * that reads a not-honoured verdict does not probe again. A reset racing a host that records a finding can leave that
 * finding (it was listed before it existed): the safe direction.
 */
public final class LeaseVerdicts {
    /** Runs the conditional-write probe. */
    interface Prober {
        ProbeResult run() throws IOException;
    }

    /** What {@link #establish} found: the store's verdict afterwards, and the probe it ran (none when the verdict was final). */
    public record Established(LeaseVerdict verdict, Optional<ProbeResult> probe) {
    }

    private final S3Objects objects;
    private final StoreKeys keys;
    private final Prober prober;
    private final Clock clock;
    private volatile LeaseVerdict last;

    LeaseVerdicts(S3Objects objects, StoreKeys keys, Prober prober, Clock clock) {
        this.objects = objects;
        this.keys = keys;
        this.prober = prober;
        this.clock = clock;
    }

    /** The verdict as the store holds it now (a LIST and a GET). */
    public LeaseVerdict read() throws IOException {
        List<ObjectInfo> found = objects.list(keys.verdictPrefix());
        Optional<ObjectInfo> firstNotHonoured = found.stream().filter(o -> keys.isNotHonouredVerdict(o.key()))
                .min(Comparator.comparing(ObjectInfo::lastModified, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(ObjectInfo::key));
        LeaseVerdict verdict;
        if (firstNotHonoured.isPresent()) {
            verdict = readVerdict(firstNotHonoured.get(), false);
        } else {
            Optional<ObjectInfo> honoured = found.stream().filter(o -> o.key().equals(keys.honouredVerdict())).findFirst();
            verdict = honoured.isPresent() ? readVerdict(honoured.get(), true) : LeaseVerdict.UNKNOWN;
        }
        last = verdict;
        return verdict;
    }

    /** The verdict this process read last, if it read one. */
    public Optional<LeaseVerdict> last() {
        return Optional.ofNullable(last);
    }

    /**
     * At start, after a reset, or when a lease is wanted and no verdict is recorded: unless the recorded verdict is final,
     * probes conditional writes, records what it found for {@code hostId}, and returns the store's verdict afterwards
     * (which another host's finding may have made not honoured meanwhile).
     */
    public Established establish(String hostId) throws IOException {
        LeaseVerdict before = read();
        if (before.isFinal()) {
            return new Established(before, Optional.empty());
        }
        ProbeResult probe = prober.run();
        record(hostId, probe.conditionalWrites(), probe.detail());
        return new Established(read(), Optional.of(probe));
    }

    /** What taking a lease needs: the recorded verdict, established first if there is none. */
    public LeaseVerdict current(String hostId) throws IOException {
        LeaseVerdict verdict = read();
        return verdict.known() ? verdict : establish(hostId).verdict();
    }

    /**
     * Records a finding of {@code hostId}: HONOURED only if no HONOURED verdict exists yet (conditionally), any other
     * under a key of its own. Returns the store's verdict afterwards.
     */
    public LeaseVerdict record(String hostId, ConditionalWrites finding, String detail) throws IOException {
        byte[] json = toBytes(new StoredVerdict(finding, hostId, clock.instant(), detail));
        if (finding == ConditionalWrites.HONOURED) {
            objects.putIfAbsent(keys.honouredVerdict(), json);
        } else {
            objects.put(keys.notHonouredVerdict(safeForKey(hostId), HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt())), json);
        }
        return read();
    }

    /** The operator's reset: deletes every verdict object, so the store's verdict is UNKNOWN. Returns how many there were. */
    public int reset() throws IOException {
        List<ObjectInfo> found = objects.list(keys.verdictPrefix());
        int deleted = 0;
        for (ObjectInfo object : found) {
            if (object.key().equals(keys.honouredVerdict()) || keys.isNotHonouredVerdict(object.key())) {
                objects.delete(object.key());
                deleted++;
            }
        }
        last = LeaseVerdict.UNKNOWN;
        return deleted;
    }

    /**
     * A verdict object as written. One that cannot be read (not JSON, too large, another verdict in the honoured key) is
     * not trusted: it counts as not honoured, so a damaged or planted object can deny leases but never grant them.
     */
    private LeaseVerdict readVerdict(ObjectInfo object, boolean honouredKey) throws IOException {
        Optional<byte[]> bytes;
        try {
            bytes = objects.get(object.key(), S3Objects.SMALL_OBJECT_BYTES);
        } catch (RemoteFormatException tooLarge) {
            return untrusted(object, tooLarge.getMessage());
        }
        if (bytes.isEmpty()) {
            // deleted between the listing and the read (a reset): read as it was listed, conservatively
            return honouredKey ? LeaseVerdict.UNKNOWN : untrusted(object, "it vanished while being read");
        }
        try {
            StoredVerdict stored = RemoteManifestCodec.JSON.readValue(bytes.get(), StoredVerdict.class);
            if (stored.conditionalWrites() == null || (stored.conditionalWrites() == ConditionalWrites.HONOURED) != honouredKey) {
                return untrusted(object, "it says " + stored.conditionalWrites() + " under a key for " + (honouredKey ? "HONOURED" : "other verdicts"));
            }
            return new LeaseVerdict(stored.conditionalWrites(), stored.hostId(), stored.recordedAt(), stored.detail());
        } catch (IOException | IllegalArgumentException e) {
            return untrusted(object, "it is not a verdict (" + e.getMessage() + ")");
        }
    }

    private static LeaseVerdict untrusted(ObjectInfo object, String why) {
        return new LeaseVerdict(ConditionalWrites.RACY, "unknown", object.lastModified(),
                "verdict object " + object.key() + " cannot be trusted, so the store is taken as not honouring conditional writes: " + why);
    }

    /** Host names go into keys: anything but letters, digits, dot, dash and underscore becomes an underscore. */
    private static String safeForKey(String hostId) {
        String safe = hostId == null ? "" : hostId.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.isEmpty() ? "unnamed" : safe.substring(0, Math.min(safe.length(), 100));
    }

    /** The verdict object's JSON. */
    @JsonPropertyOrder({"conditionalWrites", "hostId", "recordedAt", "detail"})
    private record StoredVerdict(ConditionalWrites conditionalWrites, String hostId, Instant recordedAt, String detail) {
    }

    private static byte[] toBytes(StoredVerdict verdict) {
        try {
            return RemoteManifestCodec.JSON.writeValueAsBytes(verdict);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("lease verdict cannot be written as JSON", e);
        }
    }
}
