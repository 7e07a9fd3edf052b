package dev.ateom.network;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slot {@code index} of the daemon whose names start with {@code prefix}: its network namespace is
 * {@code <prefix>-s<index>}, its host-side veth {@code <prefix>-h<index>}.
 */
public record SlotName(String prefix, int index) {

    public SlotName {
        if (index < 0) {
            throw new IllegalArgumentException("slot index " + index + " < 0");
        }
    }

    /** The slot's network namespace, also its name in records and in the API. */
    public String namespace() {
        return prefix + "-s" + index;
    }

    public String hostInterface() {
        return prefix + "-h" + index;
    }

    /** The slot named {@code name} ({@link #namespace()} or {@link #hostInterface()} form), if it has {@code prefix}. */
    public static Optional<SlotName> parse(String prefix, String name) {
        Matcher matcher = Pattern.compile(Pattern.quote(prefix) + "-[sh](0|[1-9][0-9]{0,8})").matcher(name);
        return matcher.matches() ? Optional.of(new SlotName(prefix, Integer.parseInt(matcher.group(1)))) : Optional.empty();
    }

    @Override
    public String toString() {
        return namespace();
    }
}
