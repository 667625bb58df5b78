package io.walsink.shard.io;

import io.walsink.annotation.Internal;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.ObjectAlreadyExistsException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One WAL append in flight: the pending batches of one memtable bound to one position.
 *
 * <p>Prepared on the owner thread by {@link io.walsink.shard.ShardWriter#beginAppend()}, {@link #run()} on any
 * thread (it reads only sealed, immutable batches), then handed back to
 * {@link io.walsink.shard.ShardWriter#completeAppend(WalAppend)} on the owner thread.
 */
@Internal
public final class WalAppend extends ShardTask {
    private final WalLog wal;
    private final WalEntryCodec codec;
    private final ManifestStore manifests;
    final Memtable memtable;
    final List<VectorSchemaRoot> batches;
    final long position;
    final long epoch;
    /** At most what encoding copies onto the heap while this append is in flight (S3: the whole entry). */
    final long bufferBytes;

    private volatile long bytes;
    private volatile long takenAtEpoch;

    WalAppend(
            WalLog wal,
            WalEntryCodec codec,
            ManifestStore manifests,
            Memtable memtable,
            List<VectorSchemaRoot> batches,
            long position,
            long epoch) {
        this.wal = wal;
        this.codec = codec;
        this.manifests = manifests;
        this.memtable = memtable;
        this.batches = List.copyOf(batches);
        long buffered = 0;
        for (VectorSchemaRoot batch : this.batches) {
            for (var vector : batch.getFieldVectors()) {
                buffered += vector.getBufferSize();
            }
        }
        this.bufferBytes = buffered;
        this.position = position;
        this.epoch = epoch;
    }

    @Override
    void execute() {
        WalEntryCodec.Entry entry = codec.entry(epoch, memtable.generation(), batches);
        try {
            wal.append(position, entry);
            bytes = entry.bytes();
        } catch (ObjectAlreadyExistsException taken) {
            // Who took it decides what happens next; reading that here keeps I/O off the owner.
            try {
                takenAtEpoch =
                        manifests.readLatest().map(ShardManifest::writerEpoch).orElse(0L);
            } catch (Throwable t) {
                t.addSuppressed(taken);
                throw t;
            }
            throw taken;
        }
    }

    @Override
    String describe() {
        return "append at " + position;
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

    /** After a taken position: the manifest's epoch read right after. */
    long takenAtEpoch() {
        return takenAtEpoch;
    }
}
