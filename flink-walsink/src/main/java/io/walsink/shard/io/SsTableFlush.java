package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.shard.memtable.Memtable;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Writing one frozen, fully durable memtable as an SSTable. Prepared on the owner thread by
 * {@link io.walsink.shard.ShardWriter#beginFlush()}, {@link #run()} on an I/O thread, completed on the owner
 * thread by {@link io.walsink.shard.ShardWriter#completeFlush(SsTableFlush)}.
 */
@Internal
public final class SsTableFlush extends ShardTask {
    private final SsTableWriter writer;
    final Memtable memtable;
    /** The write's reservation, taken before it started; everything the write allocates comes from it. */
    private final BufferAllocator memory;

    private volatile WrittenSsTable written;

    SsTableFlush(SsTableWriter writer, Memtable memtable, BufferAllocator memory) {
        this.writer = writer;
        this.memtable = memtable;
        this.memory = memory;
    }

    @Override
    void execute() {
        written = writer.write(memtable, memory);
    }

    /** Bytes reserved for the write. */
    public long reservedBytes() {
        return memory.getInitReservation();
    }

    /** Gives the reservation back to the writer's allocator: once the write ran, or when it never will. */
    void release() {
        memory.close();
    }

    @Override
    String describe() {
        return "flush of generation " + generation();
    }

    public long generation() {
        return memtable.generation();
    }

    WrittenSsTable written() {
        return written;
    }
}
