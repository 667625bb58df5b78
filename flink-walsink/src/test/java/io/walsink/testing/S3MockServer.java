package io.walsink.testing;

import io.walsink.storage.S3Options;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;

/**
 * Runs s3mock (a real S3-protocol server) as a separate process, started once per JVM by the
 * first test class that registers this extension and stopped when the test run ends. Its Spring
 * Boot stack therefore stays off the test classpath.
 *
 * <p>Property names checked against s3mock 4.12.4's {@code S3MockApplication}: plain HTTP on
 * {@code com.adobe.testing.s3mock.httpPort}, HTTPS on {@code server.port} (0 = any free port),
 * buckets created at start from {@code com.adobe.testing.s3mock.store.initialBuckets}. Output goes
 * to {@code target/s3mock.log}. s3mock accepts any credentials.
 */
public final class S3MockServer implements BeforeAllCallback {
    public static final String BUCKET = "walsink-test";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    private static volatile Running running;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (S3MockServer.class) {
            if (running == null) {
                Running started = start();
                // Stored in the root context so that JUnit stops it once, at the end of the whole run.
                context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL).put(S3MockServer.class, started);
                running = started;
            }
        }
    }

    public URI endpoint() {
        return URI.create("http://localhost:" + server().port);
    }

    /** Options that reach this server; the static keys are dummies (s3mock does not check them). */
    public S3Options options() {
        return S3Options.builder()
                .endpoint(endpoint())
                .region("us-east-1")
                .pathStyleAccess(true)
                .staticCredentials("walsink-test-key", "walsink-test-secret")
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
    }

    private static Running server() {
        Running current = running;
        if (current == null) {
            throw new IllegalStateException("S3MockServer is not started: register it with @RegisterExtension static");
        }
        return current;
    }

    private static Running start() throws IOException, InterruptedException {
        String jarProperty = System.getProperty("walsink.s3mock.jar");
        if (jarProperty == null || !Files.isRegularFile(Path.of(jarProperty))) {
            throw new IllegalStateException("s3mock jar not found at '" + jarProperty + "' (system property"
                    + " walsink.s3mock.jar): run 'mvn -pl flink-walsink generate-test-resources' once");
        }
        Path jar = Path.of(jarProperty);
        Path target = jar.getParent().getParent();
        Path tmp = Files.createDirectories(target.resolve("tmp").resolve("s3mock-tmp"));
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp,
                "-jar",
                jar.toString(),
                "--server.port=0",
                "--com.adobe.testing.s3mock.httpPort=" + port,
                "--com.adobe.testing.s3mock.store.initialBuckets=" + BUCKET,
                "--com.adobe.testing.s3mock.store.root=" + tmp.resolve("root-" + port)));
        Path log = target.resolve("s3mock.log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        Running started = new Running(process, port);
        Runtime.getRuntime().addShutdownHook(new Thread(started::close));
        try {
            awaitReady(process, port, log);
        } catch (RuntimeException | InterruptedException | IOException e) {
            started.close();
            throw e;
        }
        return started;
    }

    private static void awaitReady(Process process, int port, Path log) throws InterruptedException, IOException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/"))
                .timeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("s3mock exited with " + process.exitValue() + "; see " + log);
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200); // polling for readiness, not a timing assertion
        }
        throw new IllegalStateException(
                "s3mock did not answer on port " + port + " within " + STARTUP_TIMEOUT + "; see " + log);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private record Running(Process process, int port) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
