package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import io.walsink.testing.S3MockServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** S3 behaviour outside the shared contract: bad buckets, endpoints, credentials and server errors. */
class S3ObjectStoreTest {
    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    @Test
    void missingBucketIsAFinalErrorNamingTheBucket() {
        try (S3ObjectStore store = S3ObjectStore.open("no-such-bucket-walsink", "t", S3.options())) {
            assertThatThrownBy(() -> store.putIfAbsent("wal/1.arrow", new byte[] {1}))
                    .isInstanceOf(StorageException.class)
                    .isNotInstanceOf(OutcomeUnknownException.class)
                    .hasMessageContaining("bucket 'no-such-bucket-walsink' does not exist")
                    .satisfies(e ->
                            assertThat(((StorageException) e).isTransient()).isFalse());
            assertThatThrownBy(() -> store.get("x"))
                    .hasMessageContaining("bucket 'no-such-bucket-walsink' does not exist");
            assertThatThrownBy(() -> store.list("", null, 10)).hasMessageContaining("no-such-bucket-walsink");
        }
    }

    @Test
    void retryingStoreGivesUpOnAMissingBucketAtOnce() {
        RecordingSleeper sleeper = new RecordingSleeper();
        try (ObjectStore store = new RetryingObjectStore(
                S3ObjectStore.open("no-such-bucket-walsink", "", S3.options()),
                RetryPolicy.DEFAULT,
                sleeper,
                new Random(1))) {
            assertThatThrownBy(() -> store.get("x")).hasMessageContaining("does not exist");
        }
        assertThat(sleeper.waits()).isEmpty();
    }

    @Test
    void unreachableEndpointIsTransientAndNothingWasWritten() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        S3Options options = S3Options.builder()
                .endpoint("http://localhost:" + closedPort)
                .region("us-east-1")
                .pathStyleAccess(true)
                .staticCredentials("k", "s")
                .build();
        RecordingSleeper sleeper = new RecordingSleeper();
        try (ObjectStore store = new RetryingObjectStore(
                S3ObjectStore.open("bucket", "", options), RetryPolicy.DEFAULT, sleeper, new Random(1))) {
            assertThatThrownBy(() -> store.putIfAbsent("wal/1.arrow", new byte[] {1}))
                    .isNotInstanceOf(AmbiguousWriteException.class)
                    .hasMessageContaining("gave up after 4 attempts")
                    .cause()
                    .isNotInstanceOf(OutcomeUnknownException.class)
                    .hasMessageContaining("cannot connect");
        }
        assertThat(sleeper.waits()).hasSize(3);
    }

    /** A fake endpoint answering 500: the SDK must not retry by itself, and the write is undecided. */
    @Test
    void serverErrorOnConditionalPutIsSentOnceAndUndecided() throws IOException {
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("<?xml version=\"1.0\"?><Error><Code>InternalError</Code>"
                            + "<Message>We encountered an internal error.</Message></Error>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/xml");
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try (S3ObjectStore store = S3ObjectStore.open(
                "bucket",
                "t",
                S3Options.builder()
                        .endpoint("http://localhost:" + server.getAddress().getPort())
                        .region("us-east-1")
                        .pathStyleAccess(true)
                        .staticCredentials("k", "s")
                        .build())) {
            assertThatThrownBy(() -> store.putIfAbsent("wal/1.arrow", new byte[] {1}))
                    .isInstanceOf(OutcomeUnknownException.class)
                    .hasMessageContaining("InternalError");
            assertThat(requests).hasValue(1);
        } finally {
            server.stop(0);
        }
    }

    /**
     * The real default chain with nothing to find: no environment keys (else skipped), system
     * properties pointing at absent profile files, instance metadata switched off.
     */
    @Test
    void missingCredentialsAreAFinalError(@TempDir Path empty) {
        assumeTrue(
                System.getenv("AWS_ACCESS_KEY_ID") == null
                        && System.getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") == null
                        && System.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") == null,
                "AWS credentials are set in the environment");
        String[] properties = {"aws.sharedCredentialsFile", "aws.configFile", "aws.disableEc2Metadata", "aws.profile"};
        String[] saved = new String[properties.length];
        for (int i = 0; i < properties.length; i++) {
            saved[i] = System.getProperty(properties[i]);
        }
        System.setProperty(
                "aws.sharedCredentialsFile", empty.resolve("credentials").toString());
        System.setProperty("aws.configFile", empty.resolve("config").toString());
        System.setProperty("aws.disableEc2Metadata", "true");
        System.setProperty("aws.profile", "walsink-absent-profile");
        S3Options options = S3Options.builder()
                .endpoint(S3.endpoint())
                .region("us-east-1")
                .pathStyleAccess(true)
                .build();
        try (S3ObjectStore store = S3ObjectStore.open(S3MockServer.BUCKET, "t", options)) {
            assertThatThrownBy(() -> store.get("x"))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("no S3 credentials found")
                    .satisfies(e ->
                            assertThat(((StorageException) e).isTransient()).isFalse());
        } finally {
            for (int i = 0; i < properties.length; i++) {
                if (saved[i] == null) {
                    System.clearProperty(properties[i]);
                } else {
                    System.setProperty(properties[i], saved[i]);
                }
            }
        }
    }

    @Test
    void optionsNeverShowTheSecret() {
        S3Options options = S3Options.builder()
                .staticCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI-secret")
                .build();

        assertThat(options.toString()).contains("AKIDEXAMPLE").doesNotContain("wJalrXUtnFEMI-secret");
        assertThatThrownBy(() ->
                        S3Options.builder().staticCredentials("only-key", null).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void storeDescribesBucketAndPrefix() {
        try (S3ObjectStore store = S3ObjectStore.open(S3MockServer.BUCKET, "tables/t1", S3.options())) {
            assertThat(store.describe()).isEqualTo("s3://" + S3MockServer.BUCKET + "/tables/t1/");
            store.putIfAbsent("k", new byte[] {7});
            assertThat(store.head("k")).get().extracting(ObjectMeta::size).isEqualTo(1L);
        }
        try (S3ObjectStore root = S3ObjectStore.open(S3MockServer.BUCKET, "", S3.options())) {
            assertThat(root.head("tables/t1/k"))
                    .get()
                    .extracting(ObjectMeta::key)
                    .isEqualTo("tables/t1/k");
        }
    }
}
