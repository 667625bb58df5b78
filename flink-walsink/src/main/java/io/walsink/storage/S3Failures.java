package io.walsink.storage;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Translates AWS SDK failures into {@link StorageException}s a caller can act on: transient or
 * not, "not found", and for writes whether the request may have been applied
 * ({@link OutcomeUnknownException}).
 */
final class S3Failures {
    private static final Set<String> CREDENTIAL_CODES = Set.of(
            "AccessDenied",
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "ExpiredToken",
            "InvalidToken",
            "TokenRefreshRequired",
            "AllAccessDisabled");
    private static final Set<String> TRANSIENT_CODES = Set.of(
            "SlowDown",
            "Throttling",
            "ThrottlingException",
            "RequestTimeout",
            "RequestTimeTooSkewed",
            "InternalError",
            "ServiceUnavailable",
            "OperationAborted",
            "ConditionalRequestConflict");

    private S3Failures() {}

    /**
     * @param bucket named in the message when the bucket is missing
     * @param write whether the call could have changed stored data
     */
    static StorageException map(SdkException e, String location, String bucket, boolean write) {
        if (e instanceof AwsServiceException service) {
            return fromService(service, location, bucket, write);
        }
        if (isCredentialLookupFailure(e)) {
            return new StorageException(
                    location,
                    "no S3 credentials found (set them in the AWS default provider chain:"
                            + " environment, system properties, profile or instance role): " + e.getMessage(),
                    false,
                    e);
        }
        if (neverSent(e)) {
            return new StorageException(location, "cannot connect to S3: " + e.getMessage(), true, e);
        }
        // Timeouts and I/O errors: the request may have been processed by the server.
        String message = "S3 request failed: " + e.getMessage();
        return write
                ? new OutcomeUnknownException(location, message, e)
                : new StorageException(location, message, true, e);
    }

    private static StorageException fromService(AwsServiceException e, String location, String bucket, boolean write) {
        int status = e.statusCode();
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        String detail = " (HTTP " + status + (code == null ? "" : ", " + code) + ")";
        if ("NoSuchBucket".equals(code)) {
            return new StorageException(location, "bucket '" + bucket + "' does not exist" + detail, false, e);
        }
        if (status == 403 || CREDENTIAL_CODES.contains(code)) {
            return new StorageException(location, "access denied (check credentials)" + detail, false, e);
        }
        if (status == 404) {
            return new ObjectNotFoundException(location);
        }
        if (status == 409 || "ConditionalRequestConflict".equals(code)) {
            // A concurrent conditional write to the same key; ours was rejected, not applied.
            return new StorageException(location, "conflicting concurrent request" + detail, true, e);
        }
        if (status >= 500 || status == 429 || TRANSIENT_CODES.contains(code)) {
            String message = "S3 is unavailable or throttling" + detail;
            // Conservative: a server error does not prove the write was not applied.
            return write
                    ? new OutcomeUnknownException(location, message, e)
                    : new StorageException(location, message, true, e);
        }
        if (status == 301 || "PermanentRedirect".equals(code) || "AuthorizationHeaderMalformed".equals(code)) {
            return new StorageException(
                    location,
                    "bucket '" + bucket + "' is in another region or needs another" + " endpoint" + detail,
                    false,
                    e);
        }
        return new StorageException(location, "S3 rejected the request" + detail + ": " + e.getMessage(), false, e);
    }

    private static boolean isCredentialLookupFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("Unable to load credentials")) {
                return true;
            }
        }
        return false;
    }

    /** Failures that happen before a request leaves the client, so nothing can have been applied. */
    private static boolean neverSent(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException
                    || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException
                    || t.getClass().getName().equals("org.apache.http.conn.ConnectTimeoutException")) {
                return true;
            }
        }
        return false;
    }
}
