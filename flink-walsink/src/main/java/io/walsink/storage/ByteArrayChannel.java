package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;

/**
 * A channel into one byte array: each buffer written into it, off-heap ones too, is copied once,
 * straight into an array sized for the whole object up front.
 *
 * <p>Why not {@code Channels.newChannel(ByteArrayOutputStream)}: that channel copies an off-heap
 * buffer into a scratch array of 8 KiB at a time and then into the stream's, two copies of every
 * byte (docs/benchmarks.md, "Engine parts").
 */
@Internal
public final class ByteArrayChannel implements WritableByteChannel {
    private byte[] bytes;
    private int size;
    private boolean open = true;

    /** @param expectedBytes the object's expected size; more is taken by growing, at a copy */
    public ByteArrayChannel(long expectedBytes) {
        bytes = new byte[(int) Math.max(64, Math.min(expectedBytes, Integer.MAX_VALUE - 16))];
    }

    /** The bytes {@code content} writes, in one array. */
    public static byte[] collect(ObjectContent content) {
        ByteArrayChannel out = new ByteArrayChannel(content.expectedBytes());
        try {
            content.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing an object's bytes into memory failed", e);
        }
        return out.toArray();
    }

    @Override
    public int write(ByteBuffer src) throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        if (n > bytes.length - size) {
            long needed = (long) size + n;
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("an object of " + needed + " bytes does not fit in one array");
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * bytes.length)));
        }
        src.get(bytes, size, n);
        size += n;
        return n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }

    /** The bytes written: the array itself when the expected size was exact, else a copy of its start. */
    public byte[] toArray() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
}
