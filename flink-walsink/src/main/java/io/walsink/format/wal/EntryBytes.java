package io.walsink.format.wal;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;

/**
 * The bytes of an entry being encoded, as the channel Arrow's stream writer writes into: each
 * buffer, off-heap, is copied once, straight into one array sized for the whole entry up front.
 *
 * <p>Why not {@code Channels.newChannel(ByteArrayOutputStream)}: that channel copies an off-heap
 * buffer into a scratch array of 8 KiB at a time and then into the stream's, two copies of every
 * WAL byte on the I/O threads (docs/benchmarks.md, "Engine parts").
 */
final class EntryBytes implements WritableByteChannel {
    private byte[] bytes;
    private int size;
    private boolean open = true;

    /** @param expectedBytes the entry's expected size; more is taken by growing, at a copy */
    EntryBytes(int expectedBytes) {
        bytes = new byte[Math.max(expectedBytes, 64)];
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
                throw new IllegalStateException("a WAL entry of " + needed + " bytes does not fit in one array");
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
    byte[] toArray() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
}
