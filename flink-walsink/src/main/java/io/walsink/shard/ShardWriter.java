package io.walsink.shard;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.wal.WalLog;
import io.walsink.shard.ShardPoisonedException.Reason;
import io.walsink.storage.AmbiguousWriteException;
import io.walsink.storage.ObjectAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of one MemWAL shard: rows go into the active memtable; a ticker-driven appender
 * moves them to the WAL, oldest memtable first; full memtables freeze and become SSTables;
 * the owner decides when SSTables are published.
 *
 * <p>Threading: every method runs on the owner's thread. The only work meant for another thread
 * is the {@code run()} of a {@link WalAppend}, {@link SsTableFlush} or {@link ManifestUpdate},
 * which the owner obtains from {@link #beginAppend()}, {@link #beginFlush()} or
 * {@link #beginPublish} and hands back to {@link #completeAppend}, {@link #completeFlush} or
 * {@link #completeManifestUpdate}. At most one of each is in flight, which is what makes WAL
 * positions follow append order. Time enters only as arguments ({@link #recordTick},
 * {@link #nextTickAt}).
 *
 * <p>The first terminal failure poisons the writer: every later call throws the same
 * {@link ShardPoisonedException}; the way back is a new open.
 *
 * <p>Open a writer with {@link ShardOpener}.
 */
public final class ShardWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShardWriter.class);

    private final TableContext ctx;
    private final UUID shardId;
    private final int bucket;
    private final long epoch;
    private final ManifestStore manifests;
    private final WalLog wal;
    private final SsTableWriter sstables;
    private final MemtableSet memtables;
    private final FlushTicker ticker;
    private final KeyBuffer key = new KeyBuffer();
    private final ShardStats stats = new ShardStats();
    private final List<WrittenSsTable> unpublished = new ArrayList<>();

    private ShardManifest manifest;
    private long nextPosition;
    private long durablePosition;
    private long publishedGeneration;
    private WalAppend appendInFlight;
    private SsTableFlush flushInFlight;
    private ManifestUpdate manifestInFlight;
    private ShardPoisonedException poison;
    private boolean closed;

    ShardWriter(TableContext ctx, UUID shardId, int bucket, ShardManifest claimed, ManifestStore manifests,
            WalLog wal, long nextPosition, long firstGeneration) {
        this.ctx = ctx;
        this.shardId = shardId;
        this.bucket = bucket;
        this.epoch = claimed.writerEpoch();
        this.manifest = claimed;
        this.manifests = manifests;
        this.wal = wal;
        this.nextPosition = nextPosition;
        this.durablePosition = Math.max(claimed.replayAfterWalEntryPosition(), nextPosition - 1);
        this.publishedGeneration = claimed.sstables().stream().mapToLong(SsTable::generation).max().orElse(0);
        this.sstables = new SsTableWriter(ctx.table().uri(), ctx.storageOptions(), shardId, ctx.storage(), ctx.allocator());
        this.memtables = new MemtableSet(ctx.newMemtable(Math.max(1, firstGeneration)));
        this.ticker = new FlushTicker(ctx.config().flushInterval());
    }

    // ---------------------------------------------------------------- identity and state

    public long epoch() {
        return epoch;
    }

    public ShardStats stats() {
        return stats;
    }

    /** The latest manifest this writer read or wrote. */
    public ShardManifest manifest() {
        return manifest;
    }

    /** Last WAL position holding rows of this writer's state (or its sentinel). */
    public long durablePosition() {
        return durablePosition;
    }

    /** The next WAL position this writer will append at. */
    public long nextPosition() {
        return nextPosition;
    }

    public Optional<ShardPoisonedException> poison() {
        return Optional.ofNullable(poison);
    }

    /** Rows put but not yet in the WAL, over all memtables. */
    public long pendingRows() {
        long rows = 0;
        for (Memtable m : memtables.all()) {
            rows += m.indexedRows() - m.durableRows();
        }
        return rows;
    }

    public long pendingBytes() {
        long bytes = 0;
        for (Memtable m : memtables.all()) {
            bytes += m.pendingBytes();
        }
        return bytes;
    }

    public boolean hasPendingRows() {
        return memtables.hasPendingRows();
    }

    /** Bytes held in memtables not yet written as SSTables. */
    public long unflushedBytes() {
        return memtables.unflushedBytes();
    }

    /**
     * Whether the owner should stop feeding rows until SSTable flushes catch up: memtables not yet
     * in SSTables plus the encode buffer of the append in flight.
     */
    public boolean overBudget() {
        long encoding = appendInFlight == null ? 0 : appendInFlight.bufferBytes;
        return unflushedBytes() + encoding > ctx.config().maxUnflushedBytes();
    }

    public int frozenMemtables() {
        return memtables.frozen().size();
    }

    public List<WrittenSsTable> unpublished() {
        return List.copyOf(unpublished);
    }

    // ---------------------------------------------------------------- writing rows

    /** Upserts every row of {@code rows} (or appends, for a table without a key). */
    public void put(VectorSchemaRoot rows) {
        writeAll(rows, false);
    }

    /** Deletes the keys of every row of {@code rows}; values other than the key are ignored. */
    public void delete(VectorSchemaRoot rows) {
        writeAll(rows, true);
    }

    /** Upserts or deletes one row of {@code rows}: the per-record path of a streaming owner. */
    public void write(VectorSchemaRoot rows, int row, boolean delete) {
        checkUsable();
        checkBatch(rows, delete);
        ctx.validator().checkKeysNotNull(rows, row, row + 1);
        appendRow(rows, ctx.keyColumns(rows), row, delete);
    }

    private void writeAll(VectorSchemaRoot rows, boolean delete) {
        checkUsable();
        checkBatch(rows, delete);
        // The whole batch is checked before any row is taken: a batch is accepted or refused whole.
        ctx.validator().checkKeysNotNull(rows, 0, rows.getRowCount());
        FieldVector[] keyColumns = ctx.keyColumns(rows);
        for (int r = 0; r < rows.getRowCount(); r++) {
            appendRow(rows, keyColumns, r, delete);
        }
    }

    private void checkBatch(VectorSchemaRoot rows, boolean delete) {
        ctx.validator().checkSchema(rows.getSchema());
        if (delete) {
            if (!ctx.keyed()) {
                throw new InvalidInputException(null, "deletes need a primary key; table " + ctx.table().uri() + " has none");
            }
            if (!ctx.storage().hasTombstone()) {
                throw new InvalidInputException(null, "WAL schema profile '" + ctx.storage().profile().profileName()
                        + "' cannot record deletes (lance-core 7.0.0 would show deleted rows); use profile 'spec'");
            }
        }
    }

    private void appendRow(VectorSchemaRoot rows, FieldVector[] keyColumns, int row, boolean delete) {
        ctx.encodeKey(keyColumns, row, key);
        Memtable active = memtables.active();
        active.append(rows, row, delete, key.array(), key.length());
        if (delete) {
            stats.deletesWritten++;
        } else {
            stats.rowsWritten++;
        }
        // Size checks cost a pass over the open batch's vectors; rows are counted on every call.
        if (active.rows() >= ctx.config().memtableMaxRows()
                || (active.rows() & 255) == 0 && ctx.memtableFull(active)) {
            freezeActive();
        }
    }

    /** Freezes the active memtable (if it has rows) and starts the next generation. */
    public void freezeActive() {
        checkUsable();
        Memtable active = memtables.active();
        if (active.rows() == 0) {
            return;
        }
        memtables.freezeActive(ctx.newMemtable(active.generation() + 1));
        LOG.debug("Shard {} froze memtable generation {} ({} rows)", shardId, active.generation(), active.rows());
    }

    // ---------------------------------------------------------------- WAL appends

    /**
     * Whether rows should be appended before the next tick: pending bytes passed
     * {@code sink.wal.max-buffer-size}, or a frozen memtable still owes its tail.
     */
    public boolean wantsEarlyAppend() {
        if (appendInFlight != null || poison != null) {
            return false;
        }
        for (Memtable m : memtables.frozen()) {
            if (m.hasPendingRows()) {
                return true;
            }
        }
        return memtables.active().hasPendingRows()
                && memtables.active().pendingBytes() >= ctx.config().walMaxBufferBytes();
    }

    /** When the next tick is due, or {@link Long#MAX_VALUE} when nothing is pending (no timer). */
    public long nextTickAt(long nowMillis) {
        return hasPendingRows() ? ticker.dueAt(nowMillis) : Long.MAX_VALUE;
    }

    /**
     * Prepares the append of the oldest memtable's pending batches, chosen now rather than when
     * the append was requested: a freeze in between must not let newer rows overtake older ones.
     *
     * @return empty if an append is in flight or nothing is pending
     */
    public Optional<WalAppend> beginAppend() {
        checkUsable();
        if (appendInFlight != null) {
            return Optional.empty();
        }
        Optional<Memtable> oldest = memtables.oldestPending();
        if (oldest.isEmpty()) {
            return Optional.empty();
        }
        Memtable m = oldest.get();
        m.sealOpenBatch();
        appendInFlight = new WalAppend(wal, ctx.codec(), manifests, m, m.pendingBatches(), nextPosition, epoch);
        return Optional.of(appendInFlight);
    }

    /**
     * Applies the outcome of {@code append}: rows become durable, or the position was taken (the
     * rows stay pending for the next position, unless a higher epoch fenced us), or the writer
     * is poisoned.
     *
     * @throws ShardPoisonedException if the append failed terminally
     */
    public void completeAppend(WalAppend append) {
        append.checkHandedBack(appendInFlight);
        appendInFlight = null;
        checkUsable();
        Throwable failure = append.failure();
        if (failure == null) {
            append.memtable.markDurable(append.batches.size(), append.position);
            durablePosition = append.position;
            nextPosition = append.position + 1;
            stats.walAppends++;
            stats.walBytes += append.bytes();
            return;
        }
        String where = wal.key(append.position);
        if (failure instanceof ObjectAlreadyExistsException) {
            stats.walConflicts++;
            if (append.takenAtEpoch() > epoch) {
                throw poison(Reason.FENCED, "WAL position " + append.position + " is taken and the manifest names epoch "
                        + append.takenAtEpoch() + " (ours is " + epoch + ")", failure);
            }
            LOG.warn("Shard {}: WAL position {} already taken by a writer of an epoch not above ours ({}); "
                    + "appending at the next position", shardId, append.position, epoch);
            nextPosition = append.position + 1;
            return;
        }
        if (failure instanceof AmbiguousWriteException) {
            throw poison(Reason.AMBIGUOUS_APPEND, "outcome of the append to " + where + " is unknown", failure);
        }
        throw poison(Reason.PERSISTENCE_FAILURE, "append to " + where + " failed", failure);
    }

    /**
     * Records that the owner's timer fired at {@code nowMillis}, so the next tick is due one
     * interval later ({@link #nextTickAt}); the owner starts the append itself.
     */
    public void recordTick(long nowMillis) {
        ticker.ticked(nowMillis);
    }

    /**
     * Old name of {@link #recordTick}: kept only while {@code ShardWriterOperator}, which is
     * being changed elsewhere, still calls it; remove once it calls {@link #recordTick}.
     */
    @Deprecated
    public void ticked(long nowMillis) {
        recordTick(nowMillis);
    }

    public boolean appendInFlight() {
        return appendInFlight != null;
    }

    public boolean flushInFlight() {
        return flushInFlight != null;
    }

    public boolean manifestUpdateInFlight() {
        return manifestInFlight != null;
    }

    /** Whether the oldest frozen memtable is fully durable and can become an SSTable now. */
    public boolean hasFlushableMemtable() {
        return memtables.oldestFrozen().map(m -> !m.hasPendingRows()).orElse(false);
    }

    /** Appends until nothing is pending, inline (restore re-appends the checkpoint's rows). */
    void appendAllPending() {
        checkUsable();
        if (appendInFlight != null) {
            throw new IllegalStateException("complete the append in flight first");
        }
        while (hasPendingRows()) {
            WalAppend append = beginAppend().orElseThrow();
            append.run();
            completeAppend(append);
        }
    }

    // ---------------------------------------------------------------- SSTables

    /**
     * Prepares writing the oldest frozen memtable as an SSTable, once all its rows are durable
     * (an SSTable must never hold rows the WAL does not).
     */
    public Optional<SsTableFlush> beginFlush() {
        checkUsable();
        if (flushInFlight != null) {
            return Optional.empty();
        }
        Optional<Memtable> oldest = memtables.oldestFrozen();
        if (oldest.isEmpty() || oldest.get().hasPendingRows()) {
            return Optional.empty();
        }
        flushInFlight = new SsTableFlush(sstables, oldest.get());
        return Optional.of(flushInFlight);
    }

    /** @throws ShardPoisonedException if writing failed (the frozen memtable is kept) */
    public void completeFlush(SsTableFlush flush) {
        flush.checkHandedBack(flushInFlight);
        flushInFlight = null;
        checkUsable();
        if (flush.failure() != null) {
            throw poison(Reason.FLUSH_FAILED, "writing SSTable generation " + flush.generation() + " failed", flush.failure());
        }
        unpublished.add(flush.written());
        memtables.retireOldestFrozen(flush.memtable);
        stats.sstablesWritten++;
        LOG.info("Shard {} wrote SSTable {} (generation {}, {} rows, WAL through {})", shardId,
                flush.written().path(), flush.written().generation(), flush.written().physicalRows(),
                flush.written().lastWalPosition());
    }

    /**
     * Prepares publishing the written SSTables of generations up to {@code upToGeneration}: one
     * manifest version that lists them and moves {@code replay_after} past their WAL range.
     *
     * @return empty if nothing qualifies or a manifest update is in flight
     */
    public Optional<ManifestUpdate> beginPublish(long upToGeneration) {
        checkUsable();
        if (manifestInFlight != null) {
            return Optional.empty();
        }
        List<WrittenSsTable> batch = unpublished.stream().filter(t -> t.generation() <= upToGeneration).toList();
        if (batch.isEmpty()) {
            return Optional.empty();
        }
        List<SsTable> next = new ArrayList<>(manifest.sstables());
        for (WrittenSsTable t : batch) {
            next.add(toManifestEntry(t));
        }
        manifestInFlight = new ManifestUpdate(manifests, epoch, next, batch.get(batch.size() - 1).lastWalPosition(),
                nextPosition - 1, batch);
        return Optional.of(manifestInFlight);
    }

    /** @throws ShardPoisonedException if the update failed or a higher epoch fenced us */
    public void completeManifestUpdate(ManifestUpdate update) {
        update.checkHandedBack(manifestInFlight);
        manifestInFlight = null;
        checkUsable();
        if (update.fencedBy() > 0) {
            throw poison(Reason.FENCED, "the shard manifest names epoch " + update.fencedBy() + " (ours is " + epoch + ")", null);
        }
        if (update.failure() != null) {
            throw poison(Reason.PERSISTENCE_FAILURE, "manifest write failed", update.failure());
        }
        manifest = update.written();
        stats.manifestVersionsWritten++;
        List<WrittenSsTable> published = update.publishing();
        if (!published.isEmpty()) {
            unpublished.removeAll(published);
            WrittenSsTable last = published.get(published.size() - 1);
            publishedGeneration = last.generation();
            stats.sstablesPublished += published.size();
            LOG.info("Shard {} published SSTables through generation {} (manifest version {}, replay after {})",
                    shardId, last.generation(), manifest.version(), manifest.replayAfterWalEntryPosition());
        }
    }

    static SsTable toManifestEntry(WrittenSsTable t) {
        return SsTable.of(t.generation(), t.path())
                .withInMemoryBytes(t.inMemoryBytes())
                .withPhysicalRows(t.physicalRows())
                .withPrimaryKeyBytes(t.primaryKeyBytes());
    }

    /** Writes a manifest with exactly {@code sstables} and {@code replayAfter}, inline (restore). */
    void writeManifest(List<SsTable> sstables, long replayAfter) {
        checkUsable();
        if (manifestInFlight != null) {
            throw new IllegalStateException("a manifest update is in flight");
        }
        manifestInFlight = new ManifestUpdate(manifests, epoch, sstables, replayAfter, nextPosition - 1, List.of());
        manifestInFlight.run();
        completeManifestUpdate(manifestInFlight);
    }

    // ---------------------------------------------------------------- opening (used by ShardOpener, WalReplay)

    MemtableSet memtables() {
        return memtables;
    }

    /** Replayed entries up to {@code position} count as durable. */
    void durableAtLeast(long position) {
        durablePosition = Math.max(durablePosition, position);
    }

    void restoredState(long durable, long published, List<WrittenSsTable> stillUnpublished) {
        this.durablePosition = durable;
        this.publishedGeneration = published;
        this.unpublished.clear();
        this.unpublished.addAll(stillUnpublished);
    }

    // ---------------------------------------------------------------- checkpoints and shutdown

    /**
     * The descriptor of this shard for a checkpoint. Every row put so far must be durable: the
     * owner appends everything pending before the barrier, since the descriptor stores WAL
     * positions, not rows.
     */
    public ShardDescriptor snapshot() {
        checkUsable();
        if (appendInFlight != null || hasPendingRows()) {
            throw new IllegalStateException("shard " + shardId + " has rows not yet in the WAL; append them before a snapshot");
        }
        // manifest and publishedGeneration change together (completeManifestUpdate, restore), so
        // this version lists exactly the SSTables published as of this descriptor.
        return new ShardDescriptor(shardId, bucket, epoch, manifest.replayAfterWalEntryPosition(),
                Math.max(durablePosition, manifest.replayAfterWalEntryPosition()),
                memtables.active().generation(), publishedGeneration, manifest.version(), unpublished);
    }

    /**
     * Releases memory without any I/O. Rows not yet appended are dropped, exactly as in a crash;
     * the owner appends them first (and writes and publishes SSTables) to keep them.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            memtables.close();
        }
    }

    private void checkUsable() {
        if (poison != null) {
            throw poison;
        }
        if (closed) {
            throw new IllegalStateException("shard writer " + shardId + " is closed");
        }
    }

    ShardPoisonedException poison(Reason reason, String message, Throwable cause) {
        if (poison == null) {
            poison = new ShardPoisonedException(shardId.toString(), reason, message, cause);
            LOG.error("Shard {} poisoned: {}", shardId, poison.getMessage(), cause);
        }
        return poison;
    }
}
