package dev.ateom.microvm.systeminfo.spec;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The rule for every path inside a volume (invariant 6): relative, no empty, '.' or '..'
 * segments, no control characters, at most 255 bytes a segment and 4096 in all. The first
 * segment may not start with '..': those names are the volume's own layout ({@code ..data}).
 */
public final class CleanRelativePath {
    public static final int MAX_SEGMENT_BYTES = 255;
    public static final int MAX_PATH_BYTES = 4096;

    private CleanRelativePath() {}

    /** Why {@code path} is not a clean relative path, or empty when it is. */
    public static Optional<String> problem(String path) {
        if (path == null || path.isEmpty()) {
            return Optional.of("is empty");
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                return Optional.of(String.format("contains a control character (U+%04X) at index %d", (int) c, i));
            }
        }
        if (path.startsWith("/")) {
            return Optional.of("is absolute");
        }
        if (path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            return Optional.of("is longer than " + MAX_PATH_BYTES + " bytes");
        }
        String[] segments = path.split("/", -1);
        for (String segment : segments) {
            if (segment.isEmpty()) {
                return Optional.of("has an empty segment ('//' or a trailing '/')");
            }
            if (segment.equals("..")) {
                return Optional.of("contains '..'");
            }
            if (segment.equals(".")) {
                return Optional.of("contains '.'");
            }
            if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
                return Optional.of("has a segment longer than " + MAX_SEGMENT_BYTES + " bytes");
            }
        }
        if (segments[0].startsWith("..")) {
            return Optional.of("starts with '..', which is reserved for the volume's own layout");
        }
        return Optional.empty();
    }

    /** Like {@link #problem} but for a name that must be one segment (a volume name). */
    public static Optional<String> singleSegmentProblem(String name) {
        Optional<String> problem = problem(name);
        if (problem.isPresent()) {
            return problem;
        }
        return name.contains("/") ? Optional.of("must be a single path segment (contains '/')") : Optional.empty();
    }

    /** Throws with {@code what} named when {@code path} is not clean; for runtime checks of source file names. */
    public static String require(String path, String what) {
        problem(path).ifPresent(p -> {
            throw new IllegalArgumentException(what + " '" + path + "' " + p);
        });
        return path;
    }
}
