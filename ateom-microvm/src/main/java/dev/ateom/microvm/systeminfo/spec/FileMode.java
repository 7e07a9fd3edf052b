package dev.ateom.microvm.systeminfo.spec;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Permission bits of a file in a system-info volume. JSON accepts an octal string ("0440")
 * or a Kubernetes-style decimal integer (288 == 0440); it is written back as an octal string.
 * The range (no setuid/setgid/sticky) is checked by {@link SystemInfoSpecValidator}.
 */
public record FileMode(int bits) {

    public static final FileMode DEFAULT = new FileMode(0444);

    @JsonCreator
    public static FileMode fromOctal(String octal) {
        if (octal == null || !octal.matches("[0-7]{1,5}")) {
            throw new IllegalArgumentException("'" + octal + "' is not an octal file mode such as \"0440\"");
        }
        return new FileMode(Integer.parseInt(octal, 8));
    }

    @JsonCreator
    public static FileMode fromInt(int bits) {
        return new FileMode(bits);
    }

    @JsonValue
    public String octal() {
        return String.format("%04o", bits);
    }

    @Override
    public String toString() {
        return octal();
    }
}
