package io.walsink.bench.engine;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Message bodies as HTTP/1.1 frames them. */
final class HttpBody {
    private HttpBody() {}

    /** A request's body bytes as framed on the wire (chunks included), empty without one. */
    static byte[] readRequest(InputStream in, HttpHead head) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (head.chunked()) {
            copyChunked(in, body);
        } else if (head.contentLength() > 0) {
            copy(in, body, head.contentLength());
        }
        return body.toByteArray();
    }

    /**
     * Relays a response body; returns its framed length, or -1 when it runs to the end of the
     * connection (then the connection cannot carry another request).
     */
    static long relayResponse(InputStream in, OutputStream out, HttpHead response, boolean toHead) throws IOException {
        int status = response.status();
        if (toHead || status == 204 || status == 304) {
            return 0;
        }
        if (response.chunked()) {
            return copyChunked(in, out);
        }
        long length = response.contentLength();
        if (length >= 0) {
            copy(in, out, length);
            return length;
        }
        in.transferTo(out);
        return -1;
    }

    private static void copy(InputStream in, OutputStream out, long length) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        for (long left = length; left > 0; ) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("connection closed inside a body");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    /** Copies chunks through the last one and its trailers; returns the bytes copied. */
    private static long copyChunked(InputStream in, OutputStream out) throws IOException {
        long copied = 0;
        while (true) {
            String sizeLine = line(in);
            out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            copied += sizeLine.length() + 2;
            if (size == 0) {
                for (String trailer = line(in); ; trailer = line(in)) {
                    out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    copied += trailer.length() + 2;
                    if (trailer.isEmpty()) {
                        return copied;
                    }
                }
            }
            copy(in, out, size + 2); // the data and its CRLF
            copied += size + 2;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b = in.read(); ; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed inside a chunked body");
            }
            if (b == '\n') {
                int n = s.length();
                return n > 0 && s.charAt(n - 1) == '\r' ? s.substring(0, n - 1) : s.toString();
            }
            s.append((char) b);
        }
    }
}
