package io.walsink.shard;

import io.walsink.annotation.Internal;

/**
 * Writing one frozen, fully durable memtable as an SSTable. Prepared on the owner thread by
 * {@link ShardWriter#beginFlush()}, {@link #run()} on an I/O thread, completed on the owner
 * thread by {@link ShardWriter#completeFlush(SsTableFlush)}.
 */
@Internal
public final class SsTableFlush extends ShardTask {
    private final SsTableWriter writer;
    final Memtable memtable;
    private volatile WrittenSsTable written;

    SsTableFlush(SsTableWriter writer, Memtable memtable) {
        this.writer = writer;
        this.memtable = memtable;
    }

    @Override
    void execute() {
        written = writer.write(memtable);
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
