package dev.ateom.microvm.logging;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fields added to every log line written by the current thread, such as the sandbox id, so that
 * library code logging through {@link System.Logger} is attributed to the sandbox it works for.
 * Use with try-with-resources: {@code try (var ignored = LogContext.with("sandbox", id)) { ... }}.
 */
public final class LogContext {
    private static final ThreadLocal<Map<String, String>> FIELDS = ThreadLocal.withInitial(LinkedHashMap::new);

    private LogContext() {}

    public static Scope with(String key, String value) {
        Map<String, String> fields = FIELDS.get();
        String previous = fields.put(key, value);
        return () -> {
            if (previous == null) fields.remove(key);
            else fields.put(key, previous);
        };
    }

    static Map<String, String> current() { return FIELDS.get(); }

    /** Restores the previous value when closed. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
