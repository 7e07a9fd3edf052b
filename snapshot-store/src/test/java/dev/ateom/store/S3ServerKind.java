package dev.ateom.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The S3 servers the store is tested against, with what each was measured to honour (snapshot-store/README.md,
 * "Servers tested"): how it treats {@code If-None-Match: *} under concurrency, and whether it refuses a body whose
 * Content-MD5 does not match.
 */
public enum S3ServerKind {
    /** s3proxy 2.9.0, filesystem backend: conditional writes atomic one at a time, not under concurrency. */
    S3PROXY(ConditionalWrites.RACY, true),
    /** Adobe S3Mock 4.11.0 (its exec jar): conditional writes not atomic either. */
    S3MOCK(ConditionalWrites.RACY, true),
    /** s3rver 3.7.1 (npm): ignores {@code If-None-Match} on PUT and overwrites; checks no body checksum at all. */
    S3RVER(ConditionalWrites.IGNORED, false);

    private final ConditionalWrites conditionalWrites;
    private final boolean checksContentMd5;

    S3ServerKind(ConditionalWrites conditionalWrites, boolean checksContentMd5) {
        this.conditionalWrites = conditionalWrites;
        this.checksContentMd5 = checksContentMd5;
    }

    /** What the store's probe finds on this server. */
    public ConditionalWrites conditionalWrites() {
        return conditionalWrites;
    }

    public boolean checksContentMd5() {
        return checksContentMd5;
    }

    /** A fresh server of this kind on a free loopback port, its data in a new dir below {@code workDir}. */
    public TestS3Server start(Path workDir) throws IOException {
        return switch (this) {
            case S3PROXY -> S3ProxyServer.start(workDir);
            case S3MOCK -> S3MockServer.start(workDir);
            case S3RVER -> S3rverServer.start(workDir);
        };
    }
}
