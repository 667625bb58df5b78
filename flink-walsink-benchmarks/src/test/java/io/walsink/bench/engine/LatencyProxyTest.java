package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy in front of a small object server of the JDK's: bodies arrive whole both ways however
 * they are framed, each request waits at least the least latency, refusals answer 503 SlowDown
 * without reaching the server, and requests are counted by the kind S3 bills.
 */
class LatencyProxyTest {
    private HttpServer upstream;
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final AtomicInteger reached = new AtomicInteger();
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void startUpstream() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        upstream.createContext("/", exchange -> {
            reached.incrementAndGet();
            String path = exchange.getRequestURI().getPath();
            byte[] body = exchange.getRequestBody().readAllBytes();
            switch (exchange.getRequestMethod()) {
                case "PUT" -> {
                    objects.put(path, body);
                    exchange.sendResponseHeaders(200, -1);
                }
                case "HEAD" -> {
                    byte[] o = objects.get(path);
                    exchange.getResponseHeaders().add("Content-Length", String.valueOf(o == null ? 0 : o.length));
                    exchange.sendResponseHeaders(o == null ? 404 : 200, -1);
                }
                default -> {
                    byte[] o = objects.getOrDefault(path, "<ListBucketResult/>".getBytes(StandardCharsets.UTF_8));
                    exchange.sendResponseHeaders(200, o.length);
                    exchange.getResponseBody().write(o);
                }
            }
            exchange.close();
        });
        upstream.start();
    }

    @AfterEach
    void stopUpstream() {
        upstream.stop(0);
    }

    private LatencyProxy proxy(int minMillis, int maxMillis, double slowDown) throws Exception {
        return new LatencyProxy(
                URI.create("http://localhost:" + upstream.getAddress().getPort()),
                0,
                minMillis,
                maxMillis,
                slowDown,
                7);
    }

    @Test
    void bodiesPassWholeInBothFramingsAndRequestsAreCountedByKind() throws Exception {
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        try (LatencyProxy proxy = proxy(0, 0, 0)) {
            URI object = proxy.endpoint().resolve("/bucket/key/a");
            send(HttpRequest.newBuilder(object).PUT(HttpRequest.BodyPublishers.ofByteArray(big)));
            // An unknown length goes chunked; with Expect: 100-continue the proxy answers it itself.
            send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket/key/b"))
                    .expectContinue(true)
                    .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))));

            assertThat(objects.get("/bucket/key/a")).isEqualTo(big);
            assertThat(objects.get("/bucket/key/b")).isEqualTo(big);
            assertThat(send(HttpRequest.newBuilder(object).GET()).body()).isEqualTo(big);
            assertThat(send(HttpRequest.newBuilder(object).method("HEAD", HttpRequest.BodyPublishers.noBody()))
                            .statusCode())
                    .isEqualTo(200);
            send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket?list-type=2&prefix=key/"))
                    .GET());

            assertThat(proxy.requests())
                    .containsEntry(LatencyProxy.Kind.PUT, 2L)
                    .containsEntry(LatencyProxy.Kind.GET, 1L)
                    .containsEntry(LatencyProxy.Kind.HEAD, 1L)
                    .containsEntry(LatencyProxy.Kind.LIST, 1L);
            assertThat(reached.get()).isEqualTo(5);
            assertThat(proxy.slowDowns()).isZero();
            assertThat(proxy.bytesUp()).isGreaterThanOrEqualTo(2L * big.length);
        }
    }

    @Test
    void everyRequestWaitsAtLeastTheLeastLatency() throws Exception {
        try (LatencyProxy proxy = proxy(40, 40, 0)) {
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket/k" + i))
                        .PUT(HttpRequest.BodyPublishers.ofString("v")));
                assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(40);
            }
        }
    }

    @Test
    void refusedRequestsAnswerSlowDownWithoutReachingTheServer() throws Exception {
        try (LatencyProxy proxy = proxy(0, 0, 1.0)) {
            // A refused HEAD first: its answer has no body, or the next answer on the connection breaks.
            HttpResponse<byte[]> head =
                    send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket/k"))
                            .method("HEAD", HttpRequest.BodyPublishers.noBody()));
            HttpResponse<byte[]> response =
                    send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket/k"))
                            .PUT(HttpRequest.BodyPublishers.ofString("v")));
            // the connection stays usable after a refusal
            HttpResponse<byte[]> second =
                    send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bucket/k"))
                            .GET());

            assertThat(head.statusCode()).isEqualTo(503);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).contains("<Code>SlowDown</Code>");
            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(proxy.slowDowns()).isEqualTo(3);
            assertThat(reached.get()).isZero();
            assertThat(objects).isEmpty();
        }
    }

    @Test
    void aRefusedHeadIsAnsweredWithoutABodySoTheConnectionCarriesTheNextAnswer() throws Exception {
        try (LatencyProxy proxy = proxy(0, 0, 1.0);
                Socket socket = new Socket("localhost", proxy.endpoint().getPort())) {
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            out.write(
                    "HEAD /bucket/k HTTP/1.1\r\nHost: localhost\r\n\r\nGET /bucket/k HTTP/1.1\r\nHost: localhost\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();

            HttpHead headAnswer = HttpHead.read(in).orElseThrow();
            HttpHead getAnswer = HttpHead.read(in).orElseThrow();

            assertThat(headAnswer.status()).isEqualTo(503);
            assertThat(getAnswer.firstLine()).startsWith("HTTP/1.1 503");
            byte[] body = in.readNBytes((int) getAnswer.contentLength());
            assertThat(new String(body, StandardCharsets.UTF_8)).contains("<Code>SlowDown</Code>");
        }
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
