package io.walsink.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A file's writes, gathered in a stage of {@link LocalObjectStore#WRITE_SLICE_BYTES} of native
 * memory: an Arrow stream writes many small buffers (headers, padding, a batch's vectors), and
 * one system call each cost more than copying them. A direct buffer of at least the stage's size
 * goes to the file as it is, with no copy.
 *
 * <p>Why not the heap: writing an array, the JDK copies it into a direct buffer of its own first;
 * encoding a WAL entry into an array first was two copies of every byte, and a fresh zeroed array
 * per entry (docs/benchmarks.md, "Engine parts"). The stage comes from the store's {@link
 * StagePool} when the writes start and goes back to it when they are closed, so its pages stay
 * resident between puts and none outlives the store (a direct buffer kept per thread stayed
 * allocated after the thread ended, until a garbage collection).
 */
final class StagedFileWrites implements WritableByteChannel {
    private final FileChannel file;
    private final StagePool pool;
    private final StagePool.Stage taken;
    private final ByteBuffer stage;
    private boolean open = true;

    StagedFileWrites(FileChannel file, StagePool pool) {
        this.file = file;
        this.pool = pool;
        this.taken = pool.acquire();
        this.stage = taken.buffer();
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        if (src.isDirect() && n >= stage.capacity()) {
            flush();
            writeFully(src);
            return n;
        }
        while (src.hasRemaining()) {
            if (!stage.hasRemaining()) {
                flush();
            }
            int take = Math.min(src.remaining(), stage.remaining());
            stage.put(stage.position(), src, src.position(), take);
            stage.position(stage.position() + take);
            src.position(src.position() + take);
        }
        return n;
    }

    /** Writes what the stage holds to the file. */
    void flush() throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        stage.flip();
        writeFully(stage);
        stage.clear();
    }

    private void writeFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            file.write(buffer);
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Stops taking writes and hands the stage back; what is staged and not flushed is dropped. */
    @Override
    public void close() {
        if (open) {
            open = false;
            pool.release(taken);
        }
    }
}
