package dev.ateom.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;

/** Where the store lives: {@code s3://bucket/prefix}; every key ateom writes is below the prefix. */
public record StoreLocation(String bucket, String prefix) {
    // S3's rules for new buckets (3-63 of lowercase letters, digits, dots, hyphens; letter or digit at both ends)
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final Pattern PREFIX_SEGMENT = Pattern.compile("[A-Za-z0-9._-]+");

    public StoreLocation {
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("bucket '" + bucket + "' is not a valid bucket name");
        }
    }

    public static StoreLocation parse(String location) throws StoreConfigException {
        if (location == null || location.isBlank()) {
            throw new StoreConfigException(StoreOption.LOCATION, "is empty; give s3://bucket or s3://bucket/prefix");
        }
        URI uri;
        try {
            uri = new URI(location);
        } catch (URISyntaxException e) {
            throw new StoreConfigException(StoreOption.LOCATION, "'" + location + "' is not a URI: " + e.getReason());
        }
        if (!"s3".equals(uri.getScheme()) || uri.getAuthority() == null || uri.getQuery() != null || uri.getFragment() != null) {
            throw new StoreConfigException(StoreOption.LOCATION, "'" + location + "' is not of the form s3://bucket/prefix");
        }
        String bucket = uri.getAuthority();
        if (!BUCKET.matcher(bucket).matches()) {
            throw new StoreConfigException(StoreOption.LOCATION, "'" + bucket
                    + "' is not a valid bucket name (3-63 lowercase letters, digits, dots and hyphens)");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String prefix = path.replaceAll("^/+", "").replaceAll("/+$", "");
        if (!prefix.isEmpty()) {
            for (String segment : prefix.split("/", -1)) {
                if (!PREFIX_SEGMENT.matcher(segment).matches() || segment.equals(".") || segment.equals("..")) {
                    throw new StoreConfigException(StoreOption.LOCATION, "prefix '" + prefix
                            + "' must be /-separated segments of letters, digits, '.', '_' and '-'");
                }
            }
        }
        return new StoreLocation(bucket, prefix);
    }

    /** The object key of a path relative to the prefix. */
    public String key(String relative) {
        return prefix.isEmpty() ? relative : prefix + "/" + relative;
    }

    @Override
    public String toString() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }
}
