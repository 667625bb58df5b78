package io.walsink.bench.engine;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** An HTTP/1.1 request or response head, as {@link LatencyProxy} reads and relays it: its first line and headers, and the raw bytes read. */
record HttpHead(String firstLine, Map<String, String> headers, byte[] bytes) {
    static Optional<HttpHead> read(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream(512);
        int last4 = 0; // the last four bytes read; the head ends with CR LF CR LF
        while (last4 != 0x0D0A0D0A) {
            int b = in.read();
            if (b < 0) {
                if (raw.size() == 0) {
                    return Optional.empty();
                }
                throw new EOFException("connection closed inside an HTTP head");
            }
            raw.write(b);
            last4 = (last4 << 8) | b;
        }
        byte[] bytes = raw.toByteArray();
        String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n");
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        return Optional.of(new HttpHead(lines[0], headers, bytes));
    }

    Optional<String> value(String name) {
        return Optional.ofNullable(headers.get(name));
    }

    String method() {
        return firstLine.substring(0, firstLine.indexOf(' '));
    }

    String target() {
        String[] parts = firstLine.split(" ");
        return parts.length > 1 ? parts[1] : "";
    }

    int status() {
        String[] parts = firstLine.split(" ");
        return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
    }

    boolean closes() {
        return value("connection").map(v -> v.equalsIgnoreCase("close")).orElse(false);
    }

    boolean chunked() {
        return value("transfer-encoding")
                .map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
                .orElse(false);
    }

    long contentLength() {
        return value("content-length").map(Long::parseLong).orElse(-1L);
    }

    /** The head's bytes with header {@code name} left out. */
    byte[] bytesWithout(String name) {
        if (!headers.containsKey(name)) {
            return bytes;
        }
        StringBuilder s = new StringBuilder();
        for (String line : new String(bytes, StandardCharsets.ISO_8859_1).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                continue;
            }
            s.append(line).append("\r\n");
        }
        return s.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }
}
