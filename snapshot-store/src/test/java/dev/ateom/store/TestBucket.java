package dev.ateom.store;

import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Raw access to a test bucket over S3, for what a test plants or inspects behind the store's back. */
final class TestBucket implements AutoCloseable {
    private final S3Client client;
    private final String bucket;
    private final String prefix;

    TestBucket(TestS3Server server, String bucket, String prefix) {
        this.client = server.rawClient(); // fixed-length bodies, as the store sends them: s3rver would keep aws-chunked framing
        this.bucket = bucket;
        this.prefix = prefix;
    }

    String key(String relative) {
        return prefix.isEmpty() ? relative : prefix + "/" + relative;
    }

    byte[] get(String relative) {
        return client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key(relative)).build()).asByteArray();
    }

    void put(String relative, byte[] content) {
        client.putObject(PutObjectRequest.builder().bucket(bucket).key(key(relative)).build(), RequestBody.fromBytes(content));
    }

    /** Objects below a prefix, without the "dir/" placeholders s3proxy's filesystem backend lists. */
    List<S3Object> list(String relativePrefix) {
        return client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(key(relativePrefix)).build())
                .contents().stream().filter(o -> !o.key().endsWith("/")).toList();
    }

    /** The chunk objects (keys chunks/<sha256>). */
    List<S3Object> chunks() {
        return list("chunks/").stream().filter(o -> ChunkHash.isValid(o.key().substring(o.key().lastIndexOf('/') + 1))).toList();
    }

    long bytesUnder(String relativePrefix) {
        return list(relativePrefix).stream().mapToLong(S3Object::size).sum();
    }

    @Override
    public void close() {
        client.close();
    }
}
