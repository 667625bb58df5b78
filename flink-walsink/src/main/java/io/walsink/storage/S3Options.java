package io.walsink.storage;

import io.walsink.annotation.PublicEvolving;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;

/**
 * How to reach S3 or an S3-compatible server.
 *
 * <p>Credentials come from the AWS default provider chain (environment, system properties,
 * profile, container, instance role) unless a static key pair is given, which is meant as a last
 * resort. The secret never appears in {@link #toString()}, logs or messages.
 *
 * @param endpoint endpoint override (an S3-compatible server), or null for AWS
 * @param region region name, or null to use the AWS default region chain
 * @param pathStyleAccess {@code http://host/bucket/key} instead of virtual-hosted buckets
 * @param accessKeyId static access key id, or null for the default chain
 * @param secretAccessKey static secret, set exactly when {@code accessKeyId} is
 * @param requestChecksumCalculation some S3-compatible servers need {@code WHEN_REQUIRED}
 * @param responseChecksumValidation checksum validation of responses
 * @param maxConnections size of the HTTP connection pool
 * @param connectTimeout time to establish a connection
 * @param apiCallTimeout time for a whole call, after which it fails as a transient timeout
 */
@PublicEvolving
public record S3Options(
        URI endpoint,
        String region,
        boolean pathStyleAccess,
        String accessKeyId,
        String secretAccessKey,
        RequestChecksumCalculation requestChecksumCalculation,
        ResponseChecksumValidation responseChecksumValidation,
        int maxConnections,
        Duration connectTimeout,
        Duration apiCallTimeout)
        implements Serializable {

    public S3Options {
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException("give both the S3 access key id and the secret access key, or neither");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
        }
        if (requestChecksumCalculation == null
                || responseChecksumValidation == null
                || connectTimeout == null
                || apiCallTimeout == null) {
            throw new IllegalArgumentException("checksum modes and timeouts must be set");
        }
    }

    public static S3Options defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public boolean hasStaticCredentials() {
        return accessKeyId != null;
    }

    @Override
    public String toString() {
        return "S3Options[endpoint=" + endpoint + ", region=" + region + ", pathStyleAccess=" + pathStyleAccess
                + ", credentials="
                + (hasStaticCredentials() ? "static key " + accessKeyId + " (secret hidden)" : "default chain")
                + ", requestChecksumCalculation=" + requestChecksumCalculation
                + ", responseChecksumValidation=" + responseChecksumValidation + ", maxConnections=" + maxConnections
                + ", connectTimeout=" + connectTimeout + ", apiCallTimeout=" + apiCallTimeout + "]";
    }

    /** Builder with the SDK's checksum defaults, 50 connections, 10 s connect and 2 min call timeouts. */
    public static final class Builder {
        private URI endpoint;
        private String region;
        private boolean pathStyleAccess;
        private String accessKeyId;
        private String secretAccessKey;
        private RequestChecksumCalculation requestChecksumCalculation = RequestChecksumCalculation.WHEN_SUPPORTED;
        private ResponseChecksumValidation responseChecksumValidation = ResponseChecksumValidation.WHEN_SUPPORTED;
        private int maxConnections = 50;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration apiCallTimeout = Duration.ofMinutes(2);

        private Builder() {}

        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        public Builder endpoint(String endpoint) {
            return endpoint(endpoint == null ? null : URI.create(endpoint));
        }

        public Builder region(String region) {
            this.region = region;
            return this;
        }

        public Builder pathStyleAccess(boolean pathStyleAccess) {
            this.pathStyleAccess = pathStyleAccess;
            return this;
        }

        public Builder staticCredentials(String accessKeyId, String secretAccessKey) {
            this.accessKeyId = accessKeyId;
            this.secretAccessKey = secretAccessKey;
            return this;
        }

        public Builder requestChecksumCalculation(RequestChecksumCalculation mode) {
            this.requestChecksumCalculation = mode;
            return this;
        }

        public Builder responseChecksumValidation(ResponseChecksumValidation mode) {
            this.responseChecksumValidation = mode;
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        public Builder apiCallTimeout(Duration timeout) {
            this.apiCallTimeout = timeout;
            return this;
        }

        public S3Options build() {
            return new S3Options(
                    endpoint,
                    region,
                    pathStyleAccess,
                    accessKeyId,
                    secretAccessKey,
                    requestChecksumCalculation,
                    responseChecksumValidation,
                    maxConnections,
                    connectTimeout,
                    apiCallTimeout);
        }
    }
}
