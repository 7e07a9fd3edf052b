package dev.ateom.microvm.jail;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The live VMM jails, by sandbox and epoch. A sandbox has one, except while a resume's new VMM starts beside its
 * suspend's teardown: then the old epoch's jail is still there until that teardown releases it, and the newest epoch's
 * is the sandbox's current one. Each sandbox's jails are an immutable map replaced as a whole, so a reader never sees
 * one half-changed.
 */
final class LiveJails {
    private final Map<String, NavigableMap<Integer, VmmJail>> bySandbox = new ConcurrentHashMap<>();

    void put(VmmJail jail) {
        bySandbox.compute(jail.sandboxId(), (id, jails) -> {
            TreeMap<Integer, VmmJail> next = jails == null ? new TreeMap<>() : new TreeMap<>(jails);
            next.put(jail.epoch(), jail);
            return Collections.unmodifiableNavigableMap(next);
        });
    }

    /** The sandbox's current jail: its newest epoch's. */
    Optional<VmmJail> current(String sandboxId) {
        NavigableMap<Integer, VmmJail> jails = bySandbox.get(sandboxId);
        return jails == null ? Optional.empty() : Optional.of(jails.lastEntry().getValue());
    }

    Optional<VmmJail> of(String sandboxId, int epoch) {
        NavigableMap<Integer, VmmJail> jails = bySandbox.get(sandboxId);
        return jails == null ? Optional.empty() : Optional.ofNullable(jails.get(epoch));
    }

    /** Takes the {@code epoch}-th jail of the sandbox out, if it is live: whoever gets it ends it, once. */
    Optional<VmmJail> remove(String sandboxId, int epoch) {
        AtomicReference<VmmJail> removed = new AtomicReference<>();
        bySandbox.computeIfPresent(sandboxId, (id, jails) -> {
            if (!jails.containsKey(epoch)) return jails;
            removed.set(jails.get(epoch));
            TreeMap<Integer, VmmJail> next = new TreeMap<>(jails);
            next.remove(epoch);
            return next.isEmpty() ? null : Collections.unmodifiableNavigableMap(next);
        });
        return Optional.ofNullable(removed.get());
    }

    /** {@code next} in place of {@code jail} (the same sandbox and epoch), if that is still live. */
    void replace(VmmJail jail, VmmJail next) {
        bySandbox.computeIfPresent(jail.sandboxId(), (id, jails) -> {
            if (jails.get(jail.epoch()) != jail) return jails;
            TreeMap<Integer, VmmJail> changed = new TreeMap<>(jails);
            changed.put(next.epoch(), next);
            return Collections.unmodifiableNavigableMap(changed);
        });
    }

    /** Every sandbox's current jail. */
    Collection<VmmJail> currents() {
        return bySandbox.values().stream().map(jails -> jails.lastEntry().getValue()).toList();
    }

    /** Every live jail, the retiring ones too. */
    List<VmmJail> all() {
        return bySandbox.values().stream().flatMap(jails -> jails.values().stream()).toList();
    }
}
