package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.key.PrimaryKeyEncoder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorAppender;

/**
 * One generation of a shard's rows in memory, in the WAL storage schema.
 *
 * <p>Rows are copied into an open Arrow batch that is sealed after {@code batchMaxRows}; sealed
 * batches never change, so the WAL appender and the SSTable writer can read them on another
 * thread. Two cursors describe progress: {@code indexedRows} (rows applied to the primary-key
 * index) and {@code durableRows} (rows in WAL entries). Readers of the memtable see a row only
 * when both cover it; that count is derived from the cursors on every call, never cached, so it
 * cannot go stale when either moves.
 *
 * <p>Rows written one at a time ({@link #appendRow}, the Flink operator's path) are indexed when
 * their batch is sealed, or earlier when something asks the index: one pass over thousands of
 * keys lets the index's random probes overlap (it was a quarter of the operator's writer thread,
 * cache misses, when each row probed on its own). Sealing comes before the WAL and the SSTable
 * writer read a batch, so neither ever sees an unindexed row.
 *
 * <p>Rows come one at a time ({@link #append}) or as a range of a batch ({@link #appendRange}),
 * which copies each column's range at once (Arrow's {@link VectorAppender}: a memory copy of the
 * values and the validity bits) instead of one {@code copyFromSafe} per row and column. The
 * primary-key index is chosen by the key's shape ({@link KeyIndex#forKey}).
 *
 * <p>The batch being filled is an {@link OpenBatch}, sized by {@link BatchSizing}; the sealed ones
 * and how far the WAL has them are {@link SealedBatches}.
 *
 * <p>Not thread-safe: the shard's owner thread calls everything except reads of sealed batches.
 */
@Internal
public final class Memtable implements AutoCloseable {
    /** The rows of one Arrow batch of a memtable unless configured otherwise ({@code sink.batch.max-rows}). */
    public static final int DEFAULT_BATCH_MAX_ROWS = 8_192;

    private final BufferAllocator allocator;
    private final Schema schema;
    private final long generation;
    private final int batchMaxRows;
    private final int tombstoneColumn;
    private final KeyIndex index; // null for append-only tables
    private final SupersededRows superseded = new SupersededRows(); // rows a later row of their key replaced
    private final PrimaryKeyEncoder keys; // reads keys from columns; null for append-only tables
    private final RowKeys rowKeys; // an append table's generated keys; RowKeys.NONE for other tables

    private final SealedBatches sealed = new SealedBatches();
    private OpenBatch open; // null until a row arrives after a seal
    private BatchSizing sizing;
    private long indexedRows; // <= rows(): the open batch's rows written by appendRow wait for the seal
    private boolean frozen;

    /**
     * A memtable whose rows are indexed by the key {@code keys} reads (null for an append-only
     * table), with the index that suits the key's shape.
     *
     * @param tombstoneColumn index of the {@code _tombstone} column, or -1 for a profile without
     */
    public Memtable(
            BufferAllocator allocator,
            Schema schema,
            long generation,
            int batchMaxRows,
            int tombstoneColumn,
            PrimaryKeyEncoder keys,
            RowKeys rowKeys) {
        if (generation < 1) {
            throw new IllegalArgumentException("memtable generation must be >= 1, was " + generation);
        }
        this.allocator = allocator;
        this.schema = schema;
        this.generation = generation;
        this.batchMaxRows = batchMaxRows;
        this.tombstoneColumn = tombstoneColumn;
        this.keys = keys;
        this.rowKeys = rowKeys;
        this.index = keys == null ? null : KeyIndex.forKey(keys);
        this.sizing = new BatchSizing(schema, batchMaxRows);
    }

    /**
     * Sizes this memtable's batches as {@code previous}, the shard's memtable before it, would size
     * its next one (when both have the same schema), instead of from a first guess: the batches
     * are then not regrown while the first ones fill (a copy into fresh memory each time).
     */
    public void sizeBatchesAfter(Memtable previous) {
        if (open != null || sealed.count() > 0) {
            throw new IllegalStateException("memtable generation " + generation + " already has rows");
        }
        if (previous.schema.equals(schema)) {
            sizing = new BatchSizing(previous.sizing);
        }
    }

    public long generation() {
        return generation;
    }

    public Schema schema() {
        return schema;
    }

    /**
     * Copies row {@code row} of {@code input} (same column order as the storage schema, without
     * the tombstone column) and indexes its key bytes.
     */
    public void append(VectorSchemaRoot input, int row, boolean tombstone, byte[] key, int keyLength) {
        checkTombstone(tombstone);
        indexOpenRows();
        openBatch()
                .copyRow(input.getFieldVectors(), row, tombstoneColumn, tombstone, rowKeys, generation, sealed.rows());
        rowAppended(key, keyLength);
    }

    /**
     * Copies row {@code row} of {@code input} and indexes its key, read from {@code keyColumns}
     * (the key vectors of {@code input}; ignored for an append-only table) without key bytes
     * where the key's shape allows.
     */
    public void append(VectorSchemaRoot input, int row, boolean tombstone, FieldVector[] keyColumns) {
        checkTombstone(tombstone);
        checkKeyColumns(keyColumns);
        indexOpenRows();
        openBatch()
                .copyRow(input.getFieldVectors(), row, tombstoneColumn, tombstone, rowKeys, generation, sealed.rows());
        long position = sealed.rows() + open.rows();
        open.added(1);
        if (index != null) {
            index.putRange(keys, keyColumns, row, row + 1, position, superseded);
        }
        rowsIndexed(position + 1);
    }

    /**
     * Copies rows {@code [from, to)} of {@code input} column by column, a range of each column at
     * once, and indexes their keys in row order (a later row of a key wins). The same as
     * {@link #append(VectorSchemaRoot, int, boolean, FieldVector[])} for each row in turn:
     * batches are sealed at the same rows.
     */
    public void appendRange(VectorSchemaRoot input, int from, int to, boolean tombstone, FieldVector[] keyColumns) {
        checkTombstone(tombstone);
        checkKeyColumns(keyColumns);
        indexOpenRows();
        List<FieldVector> inputs = input.getFieldVectors();
        for (int row = from; row < to; ) {
            OpenBatch batch = openBatch();
            int count = Math.min(to - row, batchMaxRows - batch.rows());
            batch.copyRange(inputs, row, count, tombstoneColumn, tombstone, rowKeys, generation, sealed.rows());
            long first = sealed.rows() + batch.rows();
            batch.added(count);
            if (index != null) {
                index.putRange(keys, keyColumns, row, row + count, first, superseded);
            }
            row += count;
            rowsIndexed(first + count);
        }
    }

    /**
     * Lets {@code row} write its values straight into the open batch (one copy from the source
     * record), then checks its key ({@code validator}); its key is indexed with the rest of the
     * batch (see the class comment). A row that fails does not count; its partly written values
     * are overwritten by the next row.
     */
    public void appendRow(RowWriter row, boolean tombstone, InputValidator validator) {
        checkTombstone(tombstone);
        OpenBatch batch = openBatch();
        int at = batch.rows();
        batch.roomFor(at);
        FieldVector[] columns = batch.columns();
        row.writeRow(rowKeys.writerColumns(batch), at);
        rowKeys.fill(batch, at, 1, generation, sealed.rows() + at);
        validator.checkKeyNotNull(columns, at);
        if (tombstoneColumn >= 0) {
            OpenBatch.putBit((BitVector) columns[tombstoneColumn], at, tombstone);
        }
        batch.added(1);
        if (batch.rows() >= batchMaxRows) {
            sealOpenBatch();
        }
    }

    /** Indexes the open batch's rows that {@link #appendRow} wrote, in row order. */
    private void indexOpenRows() {
        if (open == null) {
            return;
        }
        int from = (int) (indexedRows - sealed.rows());
        int to = open.rows();
        if (from < to) {
            if (index != null) {
                index.putRange(keys, open.keyColumns(), from, to, indexedRows, superseded);
            }
            indexedRows = sealed.rows() + to;
        }
    }

    private void checkTombstone(boolean tombstone) {
        if (tombstone && tombstoneColumn < 0) {
            throw new IllegalArgumentException(
                    "this WAL schema profile has no _tombstone column; deletes are not supported");
        }
    }

    private void checkKeyColumns(FieldVector[] keyColumns) {
        if (index != null && keyColumns == null) {
            throw new IllegalStateException(
                    "memtable generation " + generation + " indexes a primary key: rows need their key columns");
        }
    }

    /**
     * Takes over {@code stored}, a batch already in the storage schema (a replayed WAL entry's),
     * as the next sealed batch without copying its rows, and indexes its keys in row order. The
     * buffers move to vectors of this memtable's schema; {@code stored} is left empty.
     */
    public void adoptSealed(VectorSchemaRoot stored) {
        if (frozen) {
            throw new IllegalStateException("memtable generation " + generation + " is frozen");
        }
        sealOpenBatch();
        int rows = stored.getRowCount();
        long first = sealed.rows();
        VectorSchemaRoot batch = sealed.addTransferred(schema, allocator, stored);
        if (index != null) {
            checkKeyColumns(new FieldVector[0]); // the key columns are the batch's own
            index.putRange(keys, keys.keyColumns(batch), 0, rows, first, superseded);
        }
        indexedRows = sealed.rows();
    }

    private OpenBatch openBatch() {
        if (frozen) {
            throw new IllegalStateException("memtable generation " + generation + " is frozen");
        }
        if (open == null) {
            open = sizing.open(allocator, keys);
        }
        return open;
    }

    private void rowAppended(byte[] key, int keyLength) {
        long position = sealed.rows() + open.rows();
        open.added(1);
        if (index != null) {
            long previous = index.put(key, keyLength, position);
            if (previous != KeyIndex.ABSENT) {
                superseded.mark(previous);
            }
        }
        rowsIndexed(position + 1);
    }

    private void rowsIndexed(long rows) {
        indexedRows = rows;
        if (open != null && open.rows() >= batchMaxRows) {
            sealOpenBatch();
        }
    }

    /** Rows the open batch takes before it is sealed (a whole batch when none is open). */
    public int openBatchRoom() {
        return open == null ? batchMaxRows : batchMaxRows - open.rows();
    }

    /** Number of sealed batches (the open one excluded). */
    public int sealedBatchCount() {
        return sealed.count();
    }

    /** Seals the open batch, so that everything put so far can be appended to the WAL. */
    public void sealOpenBatch() {
        if (open == null || open.rows() == 0) {
            return;
        }
        indexOpenRows();
        VectorSchemaRoot batch = open.seal();
        sizing.sealed(batch);
        sealed.add(batch);
        open = null;
    }

    /** Sealed batches not yet in the WAL, oldest first. The owner must seal first to include all. */
    public List<VectorSchemaRoot> pendingBatches() {
        return sealed.pending();
    }

    public boolean hasPendingRows() {
        return rows() > sealed.durableRows();
    }

    /** Records that the first {@code batches} pending batches are now in WAL entry {@code position}. */
    public void markDurable(int batches, long position) {
        sealed.markDurable(batches, position);
    }

    public void freeze() {
        sealOpenBatch();
        frozen = true;
    }

    public boolean isFrozen() {
        return frozen;
    }

    /** Rows applied to the primary-key index: {@link #rows()} but for what the open batch defers. */
    public long indexedRows() {
        return indexedRows;
    }

    public long durableRows() {
        return sealed.durableRows();
    }

    /** Rows a reader of the memtable may see: indexed and durable. */
    public long visibleRows() {
        return Math.min(indexedRows, sealed.durableRows());
    }

    public long rows() {
        return sealed.rows() + (open == null ? 0 : open.rows());
    }

    public int batchCount() {
        return sealed.count() + (open != null && open.rows() > 0 ? 1 : 0);
    }

    /** Arrow buffer bytes of the rows (the open batch counted by capacity). */
    public long payloadBytes() {
        return sealed.bytes() + openBytes();
    }

    /** Bytes of rows put but not yet in the WAL, by the sealed batches' sizes plus the open batch. */
    public long pendingBytes() {
        return openBytes() + sealed.pendingBytes();
    }

    /** Heap bytes of the index and its superseded-row bits; the open batch's deferred keys are not in it yet. */
    public long primaryKeyIndexBytes() {
        return index == null ? 0 : index.memoryBytes() + superseded.memoryBytes();
    }

    public int distinctKeys() {
        indexOpenRows();
        return index == null ? 0 : index.size();
    }

    /** First and last WAL positions holding rows of this memtable (0 when none). */
    public long firstWalPosition() {
        return sealed.firstWalPosition();
    }

    public long lastWalPosition() {
        return sealed.lastWalPosition();
    }

    /** Sealed batches, oldest first (all of them once frozen). */
    public List<VectorSchemaRoot> sealedBatches() {
        return sealed.all();
    }

    /** Row position (within the memtable) of the first row of sealed batch {@code i}. */
    public long batchStartRow(int i) {
        return sealed.startRow(i);
    }

    /**
     * Whether row {@code position} is the newest row of its key, given its key bytes.
     * Every row of an append-only table is its own newest.
     */
    public boolean isNewest(long position, byte[] key, int keyLength) {
        indexOpenRows();
        return index == null || index.get(key, keyLength) == position;
    }

    /**
     * Marks which rows of sealed batch {@code i} are the newest rows of their keys (every row of
     * an append-only table), from the rows later rows replaced (no key is read or probed).
     *
     * @param newest at least as long as the batch; entries past its rows are left alone
     * @return the number of rows marked
     */
    public int markNewest(int i, boolean[] newest) {
        VectorSchemaRoot batch = sealed.get(i);
        int rows = batch.getRowCount();
        if (index == null) {
            Arrays.fill(newest, 0, rows, true);
            return rows;
        }
        return superseded.markNewest(sealed.startRow(i), rows, newest);
    }

    public int tombstoneColumn() {
        return tombstoneColumn;
    }

    @Override
    public void close() {
        sealed.close();
        if (open != null) {
            open.close();
            open = null;
        }
    }

    private long openBytes() {
        return open == null ? 0 : open.contentBytes();
    }
}
