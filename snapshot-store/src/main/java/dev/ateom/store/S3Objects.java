package dev.ateom.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The few object operations the store needs, on one bucket, with typed errors. Thread-safe. */
final class S3Objects implements AutoCloseable {
    /** The most a lease, lease verdict or probe object may be: a few hundred bytes of JSON or text. */
    static final long SMALL_OBJECT_BYTES = 64 * 1024;

    private final S3Client client;
    private final StoreLocation location;

    S3Objects(S3Client client, StoreLocation location) {
        this.client = client;
        this.location = location;
    }

    void headBucket() throws StoreException {
        try {
            client.headBucket(HeadBucketRequest.builder().bucket(location.bucket()).build());
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new BucketNotFoundException(location.bucket(), e);
            }
            throw StoreErrors.map(e, "checking bucket " + location.bucket(), location);
        } catch (SdkException e) {
            throw StoreErrors.map(e, "checking bucket " + location.bucket(), location);
        }
    }

    Optional<ObjectInfo> head(String key) throws StoreException {
        try {
            HeadObjectResponse response = client.headObject(HeadObjectRequest.builder().bucket(location.bucket()).key(key).build());
            return Optional.of(new ObjectInfo(key, response.contentLength(), response.lastModified()));
        } catch (S3Exception e) {
            if (isMissingKey(e)) {
                return Optional.empty();
            }
            throw StoreErrors.map(e, "HEAD " + key, location);
        } catch (SdkException e) {
            throw StoreErrors.map(e, "HEAD " + key, location);
        }
    }

    /**
     * The whole object, read straight into one array of its Content-Length (the SDK's {@code getObjectAsBytes} grows
     * a buffer and copies it: a tenth of a pull's client CPU samples were there), inside the request so its timeout
     * covers the body too. An object larger than {@code maxBytes} is refused before its body is read (a store that
     * announces a terabyte gets no terabyte of heap); a body shorter or longer than announced is a broken transfer.
     */
    Optional<byte[]> get(String key, long maxBytes) throws StoreException {
        try {
            return Optional.of(client.getObject(GetObjectRequest.builder().bucket(location.bucket()).key(key).build(),
                    (GetObjectResponse response, AbortableInputStream in) -> readBody(key, response.contentLength(), in, maxBytes)));
        } catch (RefusedBody e) {
            throw e.refusal;
        } catch (S3Exception e) {
            if (isMissingKey(e)) {
                return Optional.empty();
            }
            throw StoreErrors.map(e, "GET " + key, location);
        } catch (SdkException e) {
            throw StoreErrors.map(e, "GET " + key, location);
        }
    }

    private static byte[] readBody(String key, Long announced, InputStream in, long maxBytes) {
        try {
            if (announced != null && announced > maxBytes) {
                throw new RemoteFormatException("GET " + key + ": the store announces " + announced + " bytes, more than the "
                        + maxBytes + " such an object can have; not read");
            }
            if (announced == null || announced < 0) {
                byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (body.length > maxBytes) {
                    throw new RemoteFormatException("GET " + key + ": the store sent more than the " + maxBytes
                            + " bytes such an object can have; the rest was not read");
                }
                return body;
            }
            byte[] body = new byte[announced.intValue()];
            int read = in.readNBytes(body, 0, body.length);
            if (read != body.length || in.read() >= 0) {
                throw new StoreUnavailableException("GET " + key + " failed: the body " + (read != body.length ? "ended after " + read : "ran past")
                        + " of the " + announced + " bytes announced", null);
            }
            return body;
        } catch (StoreException e) {
            throw new RefusedBody(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Carries the store's own refusal of a body out of the SDK's response handler, unretried. */
    private static final class RefusedBody extends RuntimeException {
        private final StoreException refusal;

        RefusedBody(StoreException refusal) {
            super(refusal.getMessage(), refusal, false, false);
            this.refusal = refusal;
        }
    }

    /**
     * Uploads {@code content}, which the caller must not change until this returns (the SDK reads it in place): one
     * fixed-length body, signed with its SHA-256, with its Content-MD5 for the store to check.
     */
    void put(String key, byte[] content) throws StoreException {
        try {
            client.putObject(PutObjectRequest.builder().bucket(location.bucket()).key(key).contentLength((long) content.length)
                            .contentMD5(md5(content)).build(), inPlace(content));
        } catch (SdkException e) {
            throw StoreErrors.map(e, "PUT " + key, location);
        }
    }

    /** PUT with {@code If-None-Match: *}: false when the store answers 412 (the key exists and the store honours the condition). */
    boolean putIfAbsent(String key, byte[] content) throws StoreException {
        try {
            client.putObject(PutObjectRequest.builder().bucket(location.bucket()).key(key).ifNoneMatch("*")
                    .contentLength((long) content.length).contentMD5(md5(content)).build(), inPlace(content));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return false;
            }
            throw StoreErrors.map(e, "conditional PUT " + key, location);
        } catch (SdkException e) {
            throw StoreErrors.map(e, "conditional PUT " + key, location);
        }
    }

    /** Copies an object onto itself so its Last-Modified becomes now (what keeps a reused chunk out of gc's reach). */
    void touch(String key) throws StoreException {
        try {
            client.copyObject(CopyObjectRequest.builder().sourceBucket(location.bucket()).sourceKey(key)
                    .destinationBucket(location.bucket()).destinationKey(key)
                    .metadataDirective(MetadataDirective.REPLACE).metadata(Map.of("ateom-touched", Instant.now().toString())).build());
        } catch (SdkException e) {
            throw StoreErrors.map(e, "refreshing " + key, location);
        }
    }

    void delete(String key) throws StoreException {
        try {
            client.deleteObject(DeleteObjectRequest.builder().bucket(location.bucket()).key(key).build());
        } catch (SdkException e) {
            throw StoreErrors.map(e, "DELETE " + key, location);
        }
    }

    List<ObjectInfo> list(String prefix) throws StoreException {
        List<ObjectInfo> objects = new ArrayList<>();
        try {
            for (S3Object object : client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(location.bucket()).prefix(prefix).build())
                    .contents()) {
                objects.add(new ObjectInfo(object.key(), object.size(), object.lastModified()));
            }
        } catch (SdkException e) {
            throw StoreErrors.map(e, "listing " + prefix, location);
        }
        return objects;
    }

    /**
     * A body read from the caller's array: {@code RequestBody.fromBytes} copies it first, which for a push is one more
     * pass over every byte uploaded (and, for 2 MiB chunks, one more humongous array per request for the collector).
     */
    private static RequestBody inPlace(byte[] content) {
        return RequestBody.fromContentProvider(ContentStreamProvider.fromByteArrayUnsafe(content), content.length, "application/octet-stream");
    }

    /** The Content-MD5 header's value: base64 of the body's MD5, which S3 and most compatible stores check (400 BadDigest). */
    static String md5(byte[] content) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD5", e);
        }
    }

    /** 404 for the key, not for the bucket. */
    private static boolean isMissingKey(S3Exception e) {
        return e.statusCode() == 404 && !"NoSuchBucket".equals(StoreErrors.code(e));
    }

    StoreLocation location() {
        return location;
    }

    @Override
    public void close() {
        client.close();
    }
}
