package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.storage.S3Options;
import io.walsink.storage.StorageLocation;
import java.util.HashMap;
import java.util.Map;

/**
 * lance-core does its own object-store I/O (Rust object_store), separate from our S3 client, so
 * it must be told the same endpoint, region and credentials. Option names as lance-core 7.0.0
 * accepts them (checked against an S3-protocol server in the tests).
 */
@Internal
public final class LanceStorageOptions {
    private LanceStorageOptions() {}

    /**
     * Options for a table at {@code location}: none for local paths; for S3 the endpoint, region,
     * static credentials (if configured; otherwise lance-core uses the AWS default chain too),
     * plain-HTTP permission for an http endpoint, and path-style addressing.
     */
    public static Map<String, String> of(StorageLocation location, S3Options s3) {
        Map<String, String> options = new HashMap<>();
        if (!(location instanceof StorageLocation.S3)) {
            return options;
        }
        if (s3.endpoint() != null) {
            options.put("aws_endpoint", s3.endpoint().toString());
            if ("http".equalsIgnoreCase(s3.endpoint().getScheme())) {
                options.put("allow_http", "true");
            }
        }
        if (s3.region() != null) {
            options.put("aws_region", s3.region());
        }
        if (s3.hasStaticCredentials()) {
            options.put("aws_access_key_id", s3.accessKeyId());
            options.put("aws_secret_access_key", s3.secretAccessKey());
        }
        if (s3.pathStyleAccess()) {
            options.put("aws_virtual_hosted_style_request", "false");
        }
        return options;
    }
}
