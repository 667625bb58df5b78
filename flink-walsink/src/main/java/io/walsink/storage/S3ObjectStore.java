package io.walsink.storage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Objects in an S3 bucket under an optional key prefix, through aws-sdk-java-v2 and the Apache
 * HTTP client.
 *
 * <p>Put-if-absent is a conditional PUT ({@code If-None-Match: *}): 412 means the key is taken.
 * The SDK's own retries are switched off: a retry hidden inside the SDK could turn our own
 * landed-but-unacknowledged write into a 412 that looks like a peer's, so every retry goes through
 * {@link RetryingObjectStore}, which knows about {@link OutcomeUnknownException}.
 *
 * <p>A HEAD of a key in a missing bucket looks like a missing key (HEAD answers carry no error
 * code); every other operation names the missing bucket.
 */
final class S3ObjectStore implements ObjectStore {
    private final S3Client client;
    private final String bucket;
    private final String prefix;

    /**
     * @param prefix key prefix inside the bucket, without leading slash; empty for the bucket root
     */
    public S3ObjectStore(S3Client client, String bucket, String prefix) {
        this.client = client;
        this.bucket = bucket;
        this.prefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
    }

    public static S3ObjectStore open(String bucket, String prefix, S3Options options) {
        return new S3ObjectStore(newClient(options), bucket, prefix);
    }

    /** An S3 client configured from {@code options}, without SDK-level retries. */
    public static S3Client newClient(S3Options options) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(ApacheHttpClient.builder()
                        .maxConnections(options.maxConnections())
                        .connectionTimeout(options.connectTimeout()))
                .overrideConfiguration(
                        c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(options.apiCallTimeout()))
                .forcePathStyle(options.pathStyleAccess())
                .requestChecksumCalculation(options.requestChecksumCalculation())
                .responseChecksumValidation(options.responseChecksumValidation())
                .credentialsProvider(credentials(options));
        if (options.endpoint() != null) {
            builder.endpointOverride(options.endpoint());
        }
        if (options.region() != null) {
            builder.region(Region.of(options.region()));
        }
        return builder.build();
    }

    private static AwsCredentialsProvider credentials(S3Options options) {
        return options.hasStaticCredentials()
                ? StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(options.accessKeyId(), options.secretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
    }

    @Override
    public void putIfAbsent(String key, byte[] data) {
        String location = location(key);
        try {
            client.putObject(r -> r.bucket(bucket).key(fullKey(key)).ifNoneMatch("*"), RequestBody.fromBytes(data));
        } catch (AwsServiceException e) {
            if (e.statusCode() == 412) {
                throw new ObjectAlreadyExistsException(location);
            }
            throw S3Failures.map(e, location, bucket, true);
        } catch (SdkException e) {
            throw S3Failures.map(e, location, bucket, true);
        }
    }

    @Override
    public void put(String key, byte[] data) {
        call(key, true, () -> client.putObject(r -> r.bucket(bucket).key(fullKey(key)), RequestBody.fromBytes(data)));
    }

    @Override
    public byte[] get(String key) {
        return call(
                key, false, () -> client.getObjectAsBytes(r -> r.bucket(bucket).key(fullKey(key)))
                        .asByteArray());
    }

    @Override
    public byte[] getRange(String key, long offset, int length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("range must not be negative: offset " + offset + ", length " + length);
        }
        if (length == 0) {
            head(key).orElseThrow(() -> new ObjectNotFoundException(location(key)));
            return new byte[0];
        }
        String range = "bytes=" + offset + "-" + (offset + length - 1);
        try {
            return client.getObjectAsBytes(
                            r -> r.bucket(bucket).key(fullKey(key)).range(range))
                    .asByteArray();
        } catch (AwsServiceException e) {
            if (e.statusCode() == 416) {
                return new byte[0]; // the range starts at or past the end of an existing object
            }
            throw S3Failures.map(e, location(key), bucket, false);
        } catch (SdkException e) {
            throw S3Failures.map(e, location(key), bucket, false);
        }
    }

    @Override
    public Optional<ObjectMeta> head(String key) {
        try {
            HeadObjectResponse response =
                    client.headObject(r -> r.bucket(bucket).key(fullKey(key)));
            return Optional.of(new ObjectMeta(key, response.contentLength(), modified(response.lastModified())));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (AwsServiceException e) {
            if (e.statusCode() == 404 && !isNoSuchBucket(e)) {
                return Optional.empty();
            }
            throw S3Failures.map(e, location(key), bucket, false);
        } catch (SdkException e) {
            throw S3Failures.map(e, location(key), bucket, false);
        }
    }

    @Override
    public ListPage list(String keyPrefix, String continuation, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be positive, got " + maxKeys);
        }
        ListObjectsV2Response response = call(
                keyPrefix,
                false,
                () -> client.listObjectsV2(r -> r.bucket(bucket)
                        .prefix(prefix + keyPrefix)
                        .continuationToken(continuation)
                        .maxKeys(maxKeys)));
        List<ObjectMeta> objects = new ArrayList<>(response.contents().size());
        for (S3Object object : response.contents()) {
            objects.add(new ObjectMeta(
                    object.key().substring(prefix.length()), object.size(), modified(object.lastModified())));
        }
        boolean more = Boolean.TRUE.equals(response.isTruncated()) && response.nextContinuationToken() != null;
        return new ListPage(objects, more ? response.nextContinuationToken() : null);
    }

    /** LIST with the delimiter '/': the common prefixes, following pages. */
    @Override
    public SortedSet<String> listFolders(String keyPrefix) {
        SortedSet<String> folders = new TreeSet<>();
        String continuation = null;
        do {
            String token = continuation;
            ListObjectsV2Response response = call(
                    keyPrefix,
                    false,
                    () -> client.listObjectsV2(r -> r.bucket(bucket)
                            .prefix(prefix + keyPrefix)
                            .delimiter("/")
                            .continuationToken(token)));
            for (CommonPrefix common : response.commonPrefixes()) {
                folders.add(common.prefix().substring(prefix.length()));
            }
            boolean more = Boolean.TRUE.equals(response.isTruncated()) && response.nextContinuationToken() != null;
            continuation = more ? response.nextContinuationToken() : null;
        } while (continuation != null);
        return folders;
    }

    /**
     * A server that omits {@code Last-Modified} makes the object look brand new, so garbage
     * collection keeps it rather than guessing its age.
     */
    private static Instant modified(Instant lastModified) {
        return lastModified != null ? lastModified : Instant.now();
    }

    @Override
    public void delete(String key) {
        call(key, true, () -> client.deleteObject(r -> r.bucket(bucket).key(fullKey(key))));
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + prefix;
    }

    @Override
    public void close() {
        client.close();
    }

    private <T> T call(String key, boolean write, Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw S3Failures.map(e, location(key), bucket, write);
        }
    }

    private static boolean isNoSuchBucket(AwsServiceException e) {
        return e.awsErrorDetails() != null
                && "NoSuchBucket".equals(e.awsErrorDetails().errorCode());
    }

    private String fullKey(String key) {
        if (key.isEmpty() || key.startsWith("/")) {
            throw new IllegalArgumentException("object key must be relative and non-empty: '" + key + "'");
        }
        return prefix + key;
    }

    private String location(String key) {
        return describe() + key;
    }
}
