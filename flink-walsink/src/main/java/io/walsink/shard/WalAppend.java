package io.walsink.shard;

import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One WAL append in flight: the pending batches of one memtable bound to one position.
 *
 * <p>Prepared on the owner thread by {@link ShardWriter#beginAppend()}, {@link #run()} on any
 * thread (it reads only sealed, immutable batches), then handed back to
 * {@link ShardWriter#completeAppend(WalAppend)} on the owner thread.
 */
public final class WalAppend implements Runnable {
    private final WalLog wal;
    private final WalEntryCodec codec;
    final Memtable memtable;
    final List<VectorSchemaRoot> batches;
    final long position;
    final long epoch;
    private volatile long bytes;
    private volatile Throwable failure;
    private volatile boolean ran;

    WalAppend(WalLog wal, WalEntryCodec codec, Memtable memtable, List<VectorSchemaRoot> batches,
            long position, long epoch) {
        this.wal = wal;
        this.codec = codec;
        this.memtable = memtable;
        this.batches = List.copyOf(batches);
        this.position = position;
        this.epoch = epoch;
    }

    @Override
    public void run() {
        try {
            byte[] entry = codec.encode(epoch, memtable.generation(), batches);
            bytes = entry.length;
            wal.append(position, entry);
        } catch (Throwable t) {
            failure = t;
        } finally {
            ran = true;
        }
    }

    public long position() {
        return position;
    }

    public long rows() {
        long rows = 0;
        for (VectorSchemaRoot b : batches) {
            rows += b.getRowCount();
        }
        return rows;
    }

    /** Encoded size of the entry (0 until run). */
    public long bytes() {
        return bytes;
    }

    boolean ran() {
        return ran;
    }

    Throwable failure() {
        return failure;
    }
}
