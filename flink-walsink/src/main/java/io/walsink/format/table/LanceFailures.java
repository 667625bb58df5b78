package io.walsink.format.table;

import io.walsink.annotation.Internal;
import io.walsink.storage.StorageException;
import io.walsink.storage.StorageLocation;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Explains lance-core's own S3 failures. lance-core reaches S3 through Rust's object_store, not
 * our client, and its errors arrive as a bare {@code LanceError(IO): Generic S3 error: ...} with
 * Rust source locations (often as an undeclared checked {@code IOException} from JNI). This names
 * the dataset, the operation and the likely cause in the words of our own S3 errors
 * ({@code io.walsink.storage.S3Failures}), and keeps lance-core's text for diagnosis.
 */
@Internal
public final class LanceFailures {
    private static final Pattern RUST_LOCATION = Pattern.compile(",\\s*/\\S+\\.rs:\\d+:\\d+");
    private static final List<String> MISSING_BUCKET = List.of("nosuchbucket", "bucket does not exist");
    private static final List<String> DENIED =
            List.of("accessdenied", "invalidaccesskeyid", "signaturedoesnotmatch", "expiredtoken", "403 forbidden");
    private static final List<String> UNREACHABLE =
            List.of("error sending request", "connection refused", "dns error", "tcp connect", "connect error");
    private static final List<String> WRONG_REGION = List.of(
            "permanentredirect",
            "301 moved",
            "authorizationheadermalformed",
            "failed to resolve region",
            "incorrect region");
    private static final List<String> UNAVAILABLE =
            List.of("slowdown", "503 service unavailable", "500 internal server error", "throttl");

    private LanceFailures() {}

    /**
     * Whether {@code e} is lance-core failing at S3 I/O for the dataset at {@code uri}: an S3 error
     * of object_store, or a request of it that failed (a file writer's upload reports only that:
     * "Error performing PUT ...").
     */
    public static boolean isS3Failure(String uri, Throwable e) {
        if (!isS3(uri) || e == null) {
            return false;
        }
        String message = String.valueOf(e.getMessage());
        return message.contains("S3 error") || message.contains("Error performing ");
    }

    /**
     * The failure as a {@link StorageException} on {@code uri}: "{operation} through lance-core
     * failed: {likely cause}; lance-core said: {its message}". Transient when S3 could not be
     * reached or was unavailable (lance-core already retried).
     *
     * @param operation e.g. "opening the Lance dataset"
     * @param storageOptions the lance-core options used, for the endpoint
     */
    public static StorageException wrap(String uri, String operation, Map<String, String> storageOptions, Throwable e) {
        String text = lower(e);
        boolean transientFailure = containsAny(text, UNREACHABLE) || containsAny(text, UNAVAILABLE);
        return new StorageException(
                uri, operation + " through lance-core failed: " + explain(uri, storageOptions, e), transientFailure, e);
    }

    /** "{likely cause}; lance-core said: {its message without Rust source locations}". */
    public static String explain(String uri, Map<String, String> storageOptions, Throwable e) {
        return likelyCause(uri, storageOptions, lower(e)) + "; lance-core said: "
                + RUST_LOCATION.matcher(String.valueOf(e.getMessage())).replaceAll("");
    }

    private static String likelyCause(String uri, Map<String, String> storageOptions, String text) {
        String bucket = ((StorageLocation.S3) StorageLocation.parse(uri)).bucket();
        if (containsAny(text, MISSING_BUCKET)) {
            return "bucket '" + bucket + "' does not exist";
        }
        if (containsAny(text, DENIED)) {
            return "access denied (check credentials)";
        }
        if (containsAny(text, UNREACHABLE)) {
            String endpoint = storageOptions.get("aws_endpoint");
            return endpoint == null
                    ? "cannot connect to S3 (no endpoint set: lance-core used AWS for the region)"
                    : "cannot connect to the S3 endpoint " + endpoint
                            + " (check the endpoint and that the server is up)";
        }
        if (containsAny(text, WRONG_REGION)) {
            return "bucket '" + bucket + "' is in another region or needs another endpoint";
        }
        if (containsAny(text, UNAVAILABLE)) {
            return "S3 is unavailable or throttling";
        }
        return "S3 request failed";
    }

    private static boolean isS3(String uri) {
        try {
            return StorageLocation.parse(uri) instanceof StorageLocation.S3;
        } catch (RuntimeException notAPath) {
            return false;
        }
    }

    private static String lower(Throwable e) {
        return String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    }

    private static boolean containsAny(String text, List<String> needles) {
        for (String needle : needles) {
            if (text.contains(needle)) {
                return true;
            }
        }
        return false;
    }
}
