package io.walsink.storage;

import io.walsink.annotation.Internal;

/** Opens the object store for a user's {@code path}. */
@Internal
public final class ObjectStores {
    private ObjectStores() {}

    /**
     * The store for {@code path} ({@code file:///...}, a plain path, or {@code s3://bucket/prefix}),
     * wrapped in a {@link RetryingObjectStore} with {@link RetryPolicy#DEFAULT}.
     *
     * @param s3 used only for {@code s3://} paths
     * @throws IllegalArgumentException if the path is malformed
     */
    public static ObjectStore open(String path, S3Options s3) {
        return open(path, s3, RetryPolicy.DEFAULT);
    }

    public static ObjectStore open(String path, S3Options s3, RetryPolicy retryPolicy) {
        return new RetryingObjectStore(openUnretried(StorageLocation.parse(path), s3), retryPolicy);
    }

    /** The bare store, without retries (tests, and callers that wrap it themselves). */
    public static ObjectStore openUnretried(StorageLocation location, S3Options s3) {
        if (location instanceof StorageLocation.Local local) {
            return new LocalObjectStore(local.root());
        }
        StorageLocation.S3 bucket = (StorageLocation.S3) location;
        return S3ObjectStore.open(bucket.bucket(), bucket.prefix(), s3 == null ? S3Options.defaults() : s3);
    }
}
