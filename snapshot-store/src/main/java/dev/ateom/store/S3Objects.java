package dev.ateom.store;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
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
    /** Objects of the store are chunks (at most a 4 MiB chunk's zstd frame) and manifests: far below this. */
    private static final long MAX_OBJECT_BYTES = 1L << 30;

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
     * a buffer and copies it: a tenth of a pull's client CPU samples were there). A body shorter or longer than
     * announced is a broken transfer, not content.
     */
    Optional<byte[]> get(String key) throws StoreException {
        try (ResponseInputStream<GetObjectResponse> in = client.getObject(GetObjectRequest.builder().bucket(location.bucket()).key(key).build())) {
            Long announced = in.response().contentLength();
            if (announced == null || announced < 0) {
                return Optional.of(in.readAllBytes());
            }
            if (announced > MAX_OBJECT_BYTES) {
                throw new StoreRequestException("GET " + key + ": the store announces " + announced + " bytes, more than any object it should hold",
                        0, null);
            }
            byte[] body = new byte[announced.intValue()];
            int read = in.readNBytes(body, 0, body.length);
            if (read != body.length || in.read() >= 0) {
                throw new StoreUnavailableException("GET " + key + " failed: the body " + (read != body.length ? "ended after " + read : "ran past")
                        + " of the " + announced + " bytes announced", null);
            }
            return Optional.of(body);
        } catch (StoreException e) {
            throw e;
        } catch (IOException e) {
            throw new StoreUnavailableException("GET " + key + " failed: the store did not answer (" + e + ")", e);
        } catch (S3Exception e) {
            if (isMissingKey(e)) {
                return Optional.empty();
            }
            throw StoreErrors.map(e, "GET " + key, location);
        } catch (SdkException e) {
            throw StoreErrors.map(e, "GET " + key, location);
        }
    }

    /** Uploads {@code content}, which the caller must not change until this returns (the SDK reads it in place). */
    void put(String key, byte[] content) throws StoreException {
        try {
            client.putObject(PutObjectRequest.builder().bucket(location.bucket()).key(key).contentLength((long) content.length).build(),
                    inPlace(content));
        } catch (SdkException e) {
            throw StoreErrors.map(e, "PUT " + key, location);
        }
    }

    /** PUT with {@code If-None-Match: *}: false when the store answers 412 (the key exists and the store honours the condition). */
    boolean putIfAbsent(String key, byte[] content) throws StoreException {
        try {
            client.putObject(PutObjectRequest.builder().bucket(location.bucket()).key(key).ifNoneMatch("*")
                    .contentLength((long) content.length).build(), inPlace(content));
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
