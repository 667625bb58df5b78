package io.walsink.shard;

/**
 * Writing one frozen, fully durable memtable as an SSTable. Prepared on the owner thread by
 * {@link ShardWriter#beginFlush()}, {@link #run()} on an I/O thread, completed on the owner
 * thread by {@link ShardWriter#completeFlush(SsTableFlush)}.
 */
public final class SsTableFlush implements Runnable {
    private final SsTableWriter writer;
    final Memtable memtable;
    private volatile WrittenSsTable written;
    private volatile Throwable failure;
    private volatile boolean ran;

    SsTableFlush(SsTableWriter writer, Memtable memtable) {
        this.writer = writer;
        this.memtable = memtable;
    }

    @Override
    public void run() {
        try {
            written = writer.write(memtable);
        } catch (Throwable t) {
            failure = t;
        } finally {
            ran = true;
        }
    }

    public long generation() {
        return memtable.generation();
    }

    WrittenSsTable written() {
        return written;
    }

    boolean ran() {
        return ran;
    }

    Throwable failure() {
        return failure;
    }
}
