package io.walsink.shard;

import io.walsink.annotation.Internal;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MaintainedIndexes;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.io.MergeProgress;
import io.walsink.shard.memtable.InputValidator;
import io.walsink.shard.memtable.InvalidInputException;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import io.walsink.shard.memtable.RowWriter;
import io.walsink.storage.ObjectStore;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every shard writer of one table in one process shares: the store, the table's schema and
 * key, the WAL storage schema, the codec and the configuration. Building it performs every
 * local validation (key types, profile, budgets), so a writer that fails here has claimed
 * nothing.
 */
@Internal
public final class TableContext {
    private static final Logger LOG = LoggerFactory.getLogger(TableContext.class);

    private final TableLocation location;
    private final TableInfo table;
    private final WalStorageSchema storage;
    private final WalEntryCodec codec;
    private final ShardWriterConfig config;
    private final BufferAllocator allocator;
    private final InputValidator validator;
    private final PrimaryKeyEncoder keys; // null for append-only tables, generated row key or none
    private final int rowKeyColumn; // the generated row key's storage column, or -1
    private final int tombstoneColumn;
    private final List<MaintainedIndex> maintainedIndexes;

    public TableContext(
            TableLocation location,
            TableInfo table,
            WalSchemaProfile profile,
            ShardWriterConfig config,
            BufferAllocator allocator) {
        this.location = Objects.requireNonNull(location, "location");
        this.table = Objects.requireNonNull(table, "table");
        this.config = Objects.requireNonNull(config, "config");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        this.storage = WalStorageSchema.of(table, profile);
        this.codec = new WalEntryCodec(storage, allocator);
        this.validator = validator(table);
        this.keys = AppendRowKey.of(table) ? null : keyEncoder(table);
        this.rowKeyColumn = AppendRowKey.of(table)
                ? storage.schema().getFields().indexOf(storage.schema().findField(AppendRowKey.COLUMN))
                : -1;
        this.tombstoneColumn =
                storage.hasTombstone() ? storage.schema().getFields().size() - 1 : -1;
        this.maintainedIndexes = MaintainedIndexes.of(table);
    }

    /**
     * The local checks a writer of {@code table} would make, without building one: the storage
     * schema for the profile, the key columns and their types.
     */
    public static void validate(TableInfo table, WalSchemaProfile profile) {
        WalStorageSchema.of(table, profile);
        validator(table);
        keyEncoder(table);
    }

    /** Input rows have the users' columns: an append table's generated row key is the writer's. */
    private static InputValidator validator(TableInfo table) {
        return AppendRowKey.of(table)
                ? new InputValidator(AppendRowKey.userSchema(table), List.of())
                : new InputValidator(table.schema(), table.primaryKey());
    }

    /** The columns input rows have: the table's, without a generated row key ({@link AppendRowKey}). */
    public Schema inputSchema() {
        return AppendRowKey.userSchema(table);
    }

    /** The row keys of bucket {@code bucket}'s shard: {@link RowKeys#NONE} unless the table generates them. */
    public RowKeys rowKeys(int bucket) {
        return rowKeyColumn < 0 ? RowKeys.NONE : new RowKeys(bucket, rowKeyColumn);
    }

    private static PrimaryKeyEncoder keyEncoder(TableInfo table) {
        List<Field> keyFields = table.primaryKey().stream()
                .map(name -> table.schema().findField(name))
                .toList();
        for (Field f : keyFields) {
            if (f.isNullable()) {
                throw new InvalidInputException(
                        f.getName(), "primary-key column must be NOT NULL in table " + table.uri());
            }
        }
        return keyFields.isEmpty() ? null : new PrimaryKeyEncoder(keyFields);
    }

    public ObjectStore store() {
        return location.store();
    }

    /** The indexes every SSTable is published with (the table's maintained indexes). */
    public List<MaintainedIndex> maintainedIndexes() {
        return maintainedIndexes;
    }

    public TableInfo table() {
        return table;
    }

    /** The table's store, URI and lance-core options. */
    public TableLocation location() {
        return location;
    }

    public WalStorageSchema storage() {
        return storage;
    }

    public WalEntryCodec codec() {
        return codec;
    }

    public ShardWriterConfig config() {
        return config;
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    public InputValidator validator() {
        return validator;
    }

    /** Encoder of primary-key bytes, or null for a table without a key (append-only). */
    public PrimaryKeyEncoder keys() {
        return keys;
    }

    /** Whether rows carry a key the users give (deletes need one); a generated row key is not. */
    public boolean keyed() {
        return keys != null;
    }

    public int tombstoneColumn() {
        return tombstoneColumn;
    }

    /**
     * The highest generation of {@code shardId} already merged into the base table, read from the
     * base table's latest version (0: none). A failure to read it is logged and reported as 0: a
     * writer then keeps merged SSTables listed a little longer, which readers skip anyway, and never
     * drops one that is not merged.
     */
    public long mergedThrough(UUID shardId) {
        return mergeProgress(shardId).mergedThrough();
    }

    /** As {@link #mergedThrough}, with the base version it was read from ({@link MergeProgress#UNKNOWN} on failure). */
    public MergeProgress mergeProgress(UUID shardId) {
        long started = System.nanoTime();
        try (Dataset ds = location.openBase(allocator)) {
            return new MergeProgress(
                    ds.version(), MergedGenerations.of(ds, table.uri()).getOrDefault(shardId, 0L), started);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Cannot read the merged generations of table {} (shard {}); keeping every listed SSTable",
                    table.uri(),
                    shardId,
                    e);
            return MergeProgress.UNKNOWN;
        }
    }

    /** The base table's latest version; 0 if it cannot be read (logged). */
    public long latestBaseVersion() {
        try (Dataset ds = location.openBase(allocator)) {
            return ds.version();
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the latest version of table {}", table.uri(), e);
            return 0;
        }
    }

    Memtable newMemtable(long generation, RowKeys rowKeys) {
        return new Memtable(
                allocator, storage.schema(), generation, config.batchMaxRows(), tombstoneColumn, keys, rowKeys);
    }

    /**
     * Checks a batch of writes before any row is taken: the schema, and for deletes that the
     * table has a key and the WAL profile can record them.
     */
    void checkBatch(VectorSchemaRoot rows, boolean delete) {
        validator.checkSchema(rows.getSchema());
        if (delete) {
            checkDeletes();
        }
    }

    /**
     * Checks once that rows of {@code rowSchema} (what a {@link RowWriter} writes) have the
     * table's columns in order with its types, before any row is written.
     */
    public void checkRowSchema(Schema rowSchema) {
        validator.checkSchema(rowSchema);
    }

    /** Fails unless the table has a key and the WAL profile can record deletes. */
    void checkDeletes() {
        if (!keyed()) {
            throw new InvalidInputException(null, "deletes need a primary key; table " + table.uri() + " has none");
        }
        if (!storage.hasTombstone()) {
            throw new InvalidInputException(
                    null,
                    "WAL schema profile '" + storage.profile().profileName()
                            + "' cannot record deletes (lance-core 7.0.0 would show deleted rows);"
                            + " use profile 'spec'");
        }
    }

    /** Whether {@code m} reached a memtable limit of the configuration: rows, batches or bytes. */
    boolean memtableFull(Memtable m) {
        return m.rows() >= config.memtableMaxRows()
                || m.batchCount() >= config.memtableMaxBatches()
                || m.payloadBytes() + m.primaryKeyIndexBytes() >= config.memtableMaxBytes();
    }

    /** The key columns of {@code rows}, looked up once per batch; null for a table without a key. */
    FieldVector[] keyColumns(VectorSchemaRoot rows) {
        return keys == null ? null : keys.keyColumns(rows);
    }

    /**
     * How many of the {@code remaining} rows of {@code rows} go into {@code active} in one copy:
     * no more than fit under the row limit and in its open Arrow batch. The row-at-a-time path
     * looks at the byte and batch limits after every 256th row; where a range could reach one of
     * them (judged conservatively: the whole input batch's bytes, the index doubling, the next
     * batch), ranges end at those same multiples of 256, so a bulk put freezes where it would.
     */
    int bulkRange(Memtable active, VectorSchemaRoot rows, int remaining) {
        ShardWriterConfig config = config();
        long range = Math.min(remaining, config.memtableMaxRows() - active.rows());
        range = Math.min(range, active.openBatchRoom());
        long reachable = active.payloadBytes() + 2 * active.primaryKeyIndexBytes() + inputBytes(rows) + 64 * range;
        if (reachable >= config.memtableMaxBytes() || active.batchCount() + 1 >= config.memtableMaxBatches()) {
            range = Math.min(range, 256 - (active.rows() & 255));
        }
        return (int) Math.max(1, range);
    }

    private static long inputBytes(VectorSchemaRoot rows) {
        long bytes = 0;
        for (FieldVector v : rows.getFieldVectors()) {
            bytes += v.getBufferSize();
        }
        return bytes;
    }
}
