package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * An encoded WAL entry in Arrow memory (off the heap): what {@link WalEntryCodec#encodeDirect}
 * returns, written to a local file without a copy and released by {@link #close}. Through
 * {@link #channel()}, which Arrow's stream writer writes into, it takes each buffer with one memory copy into one buffer
 * sized for the whole entry up front (a heap array cost a zeroed allocation, a copy to its exact
 * size, and the JDK's copy into a direct buffer before the write: a tenth of an I/O thread in q1).
 */
@Internal
public final class DirectEntryBytes implements AutoCloseable {
    private final BufferAllocator allocator;
    private ArrowBuf buffer;
    private long size;
    private boolean writing = true;

    /** @param expectedBytes the entry's expected size; more is taken by growing, at a copy */
    DirectEntryBytes(BufferAllocator allocator, long expectedBytes) {
        this.allocator = allocator;
        this.buffer = allocator.buffer(Math.max(expectedBytes, 64));
    }

    /** Where the stream writer writes; closing it ends the writing, the memory stays. */
    WritableByteChannel channel() {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws ClosedChannelException {
                return append(src);
            }

            @Override
            public boolean isOpen() {
                return writing;
            }

            @Override
            public void close() {
                writing = false;
            }
        };
    }

    private int append(ByteBuffer src) throws ClosedChannelException {
        if (!writing) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        if (size + n > buffer.capacity()) {
            long needed = size + n;
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a WAL entry of " + needed + " bytes does not fit in one buffer");
            }
            ArrowBuf grown =
                    allocator.buffer(Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2 * buffer.capacity())));
            grown.setBytes(0, buffer, 0, size);
            buffer.close();
            buffer = grown;
        }
        buffer.setBytes(size, src);
        size += n;
        return n;
    }

    /** The entry's size in bytes. */
    public int size() {
        return (int) size;
    }

    /** The entry's bytes, a view valid until {@link #close}. */
    public ByteBuffer bytes() {
        return buffer.nioBuffer(0, (int) size);
    }

    /** Releases the memory. */
    @Override
    public void close() {
        writing = false;
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
    }
}
