package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The mapping of SDK failures, including answers s3mock cannot produce (it checks no credentials). */
class S3FailuresTest {
    private static final String LOCATION = "s3://bucket/t/wal/1.arrow";

    @ParameterizedTest
    @CsvSource({"403, AccessDenied", "403, InvalidAccessKeyId", "403, SignatureDoesNotMatch", "400, ExpiredToken"})
    void credentialProblemsAreAccessDeniedAndFinal(int status, String code) {
        StorageException e = S3Failures.map(serviceError(status, code), LOCATION, "bucket", true);

        assertThat(e.isTransient()).isFalse();
        assertThat(e)
                .isNotInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("access denied (check credentials)")
                .hasMessageContaining(code)
                .hasMessageStartingWith(LOCATION);
    }

    @ParameterizedTest
    @CsvSource({
        "503, SlowDown",
        "500, InternalError",
        "503, ServiceUnavailable",
        "429, TooManyRequests",
        "400, RequestTimeout"
    })
    void serverTroubleIsTransientAndLeavesWritesUndecided(int status, String code) {
        StorageException onWrite = S3Failures.map(serviceError(status, code), LOCATION, "bucket", true);
        StorageException onRead = S3Failures.map(serviceError(status, code), LOCATION, "bucket", false);

        assertThat(onWrite).isInstanceOf(OutcomeUnknownException.class);
        assertThat(onWrite.isTransient()).isTrue();
        assertThat(onRead).isNotInstanceOf(OutcomeUnknownException.class);
        assertThat(onRead.isTransient()).isTrue();
    }

    @Test
    void conditionalConflictIsTransientButDecided() {
        StorageException e = S3Failures.map(serviceError(409, "ConditionalRequestConflict"), LOCATION, "bucket", true);

        assertThat(e.isTransient()).isTrue();
        assertThat(e).isNotInstanceOf(OutcomeUnknownException.class);
    }

    @Test
    void missingBucketNamesTheBucket() {
        StorageException e = S3Failures.map(serviceError(404, "NoSuchBucket"), LOCATION, "bucket", false);

        assertThat(e)
                .isNotInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining("bucket 'bucket' does not exist");
        assertThat(e.isTransient()).isFalse();
    }

    @Test
    void missingKeyIsNotFound() {
        assertThat(S3Failures.map(serviceError(404, "NoSuchKey"), LOCATION, "bucket", false))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void timeoutsAfterSendingLeaveWritesUndecided() {
        ApiCallTimeoutException timeout = ApiCallTimeoutException.create(1000);
        SdkClientException readTimeout =
                SdkClientException.create("read timed out", new SocketTimeoutException("Read timed out"));

        assertThat(S3Failures.map(timeout, LOCATION, "bucket", true)).isInstanceOf(OutcomeUnknownException.class);
        assertThat(S3Failures.map(readTimeout, LOCATION, "bucket", true)).isInstanceOf(OutcomeUnknownException.class);
        assertThat(S3Failures.map(readTimeout, LOCATION, "bucket", false).isTransient())
                .isTrue();
    }

    @Test
    void connectionRefusedIsTransientAndNothingWasSent() {
        SdkClientException refused =
                SdkClientException.create("Unable to execute HTTP request", new ConnectException("Connection refused"));

        StorageException e = S3Failures.map(refused, LOCATION, "bucket", true);

        assertThat(e.isTransient()).isTrue();
        assertThat(e).isNotInstanceOf(OutcomeUnknownException.class);
    }

    @Test
    void missingCredentialsAreFinal() {
        SdkClientException noCredentials =
                SdkClientException.create("Unable to load credentials from any of the providers in the chain");

        StorageException e = S3Failures.map(noCredentials, LOCATION, "bucket", true);

        assertThat(e.isTransient()).isFalse();
        assertThat(e).hasMessageContaining("no S3 credentials found");
    }

    private static S3Exception serviceError(int status, String code) {
        return (S3Exception) S3Exception.builder()
                .statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(code + " from test")
                        .build())
                .message(code)
                .build();
    }
}
