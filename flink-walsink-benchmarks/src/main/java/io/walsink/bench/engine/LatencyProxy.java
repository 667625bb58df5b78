package io.walsink.bench.engine;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An HTTP/1.1 proxy in front of an S3-protocol server that makes it behave like S3 over a network:
 * every request waits a latency drawn from {@code [minMillis, maxMillis]} before it is forwarded,
 * and a share of them is answered {@code 503 SlowDown} (as S3 throttles) without reaching the
 * server. It counts requests by the kind S3 bills them, so that a run can say what it would cost.
 *
 * <p>Both walsink's S3 client (AWS SDK) and lance-core's (Rust {@code object_store}) talk to it as
 * to an endpoint: set it as {@code s3.endpoint}. One upstream connection per client connection,
 * requests in turn on each (HTTP/1.1 keep-alive); bodies are relayed as they are framed
 * ({@code Content-Length} or chunked); {@code Expect: 100-continue} is answered here, so the
 * body is read before a request is forwarded or refused.
 */
public final class LatencyProxy implements AutoCloseable {
    /** Request kinds as S3 prices them: PUT, COPY, POST and LIST in one tier, GET and HEAD in another. */
    enum Kind {
        PUT,
        POST,
        LIST,
        GET,
        HEAD,
        DELETE,
        OTHER
    }

    /** The latency added to each request, drawn uniformly from {@code [minMillis, maxMillis]}. */
    public record Delay(int minMillis, int maxMillis) {
        /** {@code "20-60"}, or one number for a fixed latency. */
        public static Delay parse(String range) {
            String[] ends = range.split("-");
            try {
                return new Delay(Integer.parseInt(ends[0].trim()), Integer.parseInt(ends[ends.length - 1].trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a latency is A-B in milliseconds, e.g. 20-60, got '" + range + "'");
            }
        }

        public String text() {
            return minMillis + "-" + maxMillis;
        }
    }

    private static final byte[] SLOW_DOWN_BODY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                    + "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
            .getBytes(StandardCharsets.US_ASCII);

    private final URI upstream;
    private final int minMillis;
    private final int maxMillis;
    private final double slowDownShare;
    private final SplittableRandom random;
    private final ServerSocket server;
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "latency-proxy");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLongArray requests = new AtomicLongArray(Kind.values().length);
    private final AtomicLong slowDowns = new AtomicLong();
    private final AtomicLong bytesUp = new AtomicLong();
    private final AtomicLong bytesDown = new AtomicLong();
    private volatile boolean passThrough; // no latency and no refusals from now on

    /**
     * Listens on {@code port} (0: any free port) of the loopback interface.
     *
     * @param slowDownShare share of requests refused with 503 SlowDown, in {@code [0, 1]}
     */
    public LatencyProxy(URI upstream, int port, int minMillis, int maxMillis, double slowDownShare, long seed)
            throws IOException {
        if (upstream.getHost() == null || upstream.getPort() < 0 || !"http".equals(upstream.getScheme())) {
            throw new IllegalArgumentException("upstream must be http://host:port, was " + upstream);
        }
        if (minMillis < 0 || maxMillis < minMillis) {
            throw new IllegalArgumentException("latency must be 0 <= min <= max, was " + minMillis + ".." + maxMillis);
        }
        if (!(slowDownShare >= 0 && slowDownShare <= 1)) {
            throw new IllegalArgumentException("slow-down share must be in [0, 1], was " + slowDownShare);
        }
        this.upstream = upstream;
        this.minMillis = minMillis;
        this.maxMillis = maxMillis;
        this.slowDownShare = slowDownShare;
        this.random = new SplittableRandom(seed);
        this.server = new ServerSocket(port, 64, InetAddress.getLoopbackAddress());
        connections.submit(this::accept);
    }

    /** Forwards every later request at once and refuses none (e.g. for a clean-up not measured). */
    void passThrough() {
        passThrough = true;
    }

    public URI endpoint() {
        return URI.create("http://localhost:" + server.getLocalPort());
    }

    /** Requests of each kind so far, the refused ones included. */
    Map<Kind, Long> requests() {
        Map<Kind, Long> counts = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            counts.put(k, requests.get(k.ordinal()));
        }
        return counts;
    }

    long slowDowns() {
        return slowDowns.get();
    }

    /** Body bytes sent to the server (requests) and back (responses). */
    long bytesUp() {
        return bytesUp.get();
    }

    long bytesDown() {
        return bytesDown.get();
    }

    @Override
    public void close() throws IOException {
        server.close();
        connections.shutdownNow();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                connections.submit(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Requests of one client connection, in turn, until either side closes. */
    private void serve(Socket client) {
        Socket up = null;
        try (client) {
            client.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(client.getInputStream());
            OutputStream out = client.getOutputStream();
            InputStream upIn = null;
            OutputStream upOut = null;
            while (true) {
                Optional<HttpHead> request = HttpHead.read(in);
                if (request.isEmpty()) {
                    return;
                }
                HttpHead head = request.get();
                Kind kind = kindOf(head);
                requests.incrementAndGet(kind.ordinal());
                if (head.value("expect")
                        .map(v -> v.equalsIgnoreCase("100-continue"))
                        .orElse(false)) {
                    out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                byte[] body = HttpBody.readRequest(in, head);
                long delay = 0;
                boolean refuse = false;
                if (!passThrough) {
                    synchronized (random) {
                        delay = minMillis + (maxMillis > minMillis ? random.nextInt(maxMillis - minMillis + 1) : 0);
                        refuse = slowDownShare > 0 && random.nextDouble() < slowDownShare;
                    }
                }
                Thread.sleep(delay); // the simulated network, not synchronisation
                if (refuse) {
                    slowDowns.incrementAndGet();
                    out.write(("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                                    + SLOW_DOWN_BODY.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    if (!head.method().equals("HEAD")) { // a body after a HEAD's answer would open the next answer
                        out.write(SLOW_DOWN_BODY);
                    }
                    out.flush();
                    continue;
                }
                if (up == null) {
                    up = new Socket(upstream.getHost(), upstream.getPort());
                    up.setTcpNoDelay(true);
                    upIn = new BufferedInputStream(up.getInputStream());
                    upOut = up.getOutputStream();
                }
                upOut.write(head.bytesWithout("expect"));
                upOut.write(body);
                upOut.flush();
                bytesUp.addAndGet(body.length);
                HttpHead response;
                do { // an informational answer is followed by the real one
                    response = HttpHead.read(upIn).orElseThrow(() -> new EOFException("upstream closed"));
                    out.write(response.bytes());
                } while (response.status() / 100 == 1);
                long relayed = HttpBody.relayResponse(
                        upIn, out, response, head.method().equals("HEAD"));
                out.flush();
                bytesDown.addAndGet(Math.max(0, relayed));
                if (relayed < 0 || head.closes() || response.closes()) {
                    return;
                }
            }
        } catch (IOException e) {
            // a side closed mid-exchange: the client sees a broken connection, as with a real network
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (up != null) {
                try {
                    up.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }

    static Kind kindOf(HttpHead head) {
        String target = head.target();
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? "" : target.substring(q + 1);
        return switch (head.method()) {
            case "PUT" -> Kind.PUT;
            case "POST" -> Kind.POST;
            case "HEAD" -> Kind.HEAD;
            case "DELETE" -> Kind.DELETE;
            case "GET" -> query.contains("list-type=") || isBucketPath(path) ? Kind.LIST : Kind.GET;
            default -> Kind.OTHER;
        };
    }

    /** Path style: {@code /bucket} or {@code /bucket/}, with no key. */
    private static boolean isBucketPath(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        int slash = p.indexOf('/');
        return slash < 0 || slash == p.length() - 1;
    }
}
