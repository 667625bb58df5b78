package io.walsink.recovery;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.sharding.BucketAssigner;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.BaseMergeInsert;
import io.walsink.format.table.TableSharding;
import io.walsink.shard.TableContext;
import io.walsink.shard.io.MergeProgress;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.memtable.FilteredRowsReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.IntPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets one bucket's rows in the base table's latest version back to those it had at an earlier
 * version, for a restore whose checkpoint the compactor has merged past (rows of another branch,
 * of a later attempt, or half of a generation). Keys are sharded, so no other shard's rows move.
 *
 * <p>Two fenced merge-inserts: the bucket's rows of the earlier version upserted (columns added to
 * the table since read as null: a merge-insert of rows lacking a column keeps the matched rows'
 * value of it, which may be newer than the earlier version), then the keys the bucket gained since
 * deleted. Neither marks a generation merged (merge progress only rises), and
 * repeating the whole reset after a crash between them ends the same. The bucket's keys of the
 * earlier version are held in memory while the latest version's keys are compared with them.
 */
final class BucketRowsReset {
    private static final Logger LOG = LoggerFactory.getLogger(BucketRowsReset.class);
    private static final int ATTEMPTS = 8;

    private final TableContext ctx;
    private final UUID shardId;
    private final int bucket;
    private final Runnable owner;

    /**
     * @param owner checked before every attempt and every commit; throws once a newer writer claimed
     *     the shard, so a fenced restore stops instead of running its reset, or running it again, on a
     *     base table the newer writer has moved on
     */
    BucketRowsReset(TableContext ctx, UUID shardId, int bucket, Runnable owner) {
        this.ctx = ctx;
        this.shardId = shardId;
        this.bucket = bucket;
        this.owner = owner;
    }

    /**
     * Whether the table's rows can be told apart by key, and so reset: keyed tables, and append
     * tables with walsink's row key, whose bucket part names the shard ({@link AppendRowKey}).
     */
    static boolean possible(TableContext ctx) {
        return ctx.keyed() || AppendRowKey.of(ctx.table());
    }

    /**
     * Resets the bucket's rows to those of base version {@code version}. Its commits are fenced, so
     * one that meets a concurrent commit (another subtask's restore resetting its own buckets at the
     * same moment) fails; the whole reset then runs again, computed anew on the latest version after
     * the owner check, a few times, after a short random pause so that the contenders take turns.
     *
     * @return the merge progress of the base table's latest version after the reset
     * @throws GarbageCollectedException if the base table no longer has that version
     */
    MergeProgress resetTo(long version) {
        for (int attempt = 1; ; attempt++) {
            try {
                return resetOnce(version);
            } catch (GarbageCollectedException | ShardPoisonedException e) {
                throw e;
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS) {
                    throw e;
                }
                LOG.warn(
                        "Shard {} (bucket {}): resetting its rows failed (attempt {} of {}); running it again on the"
                                + " latest version",
                        shardId,
                        bucket,
                        attempt,
                        ATTEMPTS,
                        e);
                pause(attempt);
            }
        }
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(20, 100) * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while resetting a shard's rows", e);
        }
    }

    private MergeProgress resetOnce(long version) {
        owner.run();
        String uri = ctx.table().uri();
        BufferAllocator allocator = ctx.allocator();
        try (Dataset base = ctx.location().openBase(allocator);
                Dataset earlier = checkout(base, version)) {
            long before = base.version();
            Set<ByteBuffer> earlierKeys = keysOf(earlier, allocator);
            List<String> key = ctx.table().primaryKey();
            if (!earlierKeys.isEmpty()) {
                owner.run();
                try (LanceScanner scanner =
                        LanceScanner.create(earlier, new ScanOptions.Builder().build(), allocator)) {
                    BaseMergeInsert.run(
                            base,
                            BaseMergeInsert.fenced(new MergeInsertParams(key))
                                    .withMatchedUpdateAll()
                                    .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll),
                            new FilteredRowsReader(
                                    allocator,
                                    scanner.scanBatches(),
                                    this::bucketRows,
                                    base.getSchema().getFields(),
                                    uri + " version " + version),
                            allocator);
                }
                base.checkoutLatest();
            }
            long deleted = count(base, gainedKeys(earlierKeys), allocator);
            if (deleted > 0 && plainDeletes(base)) {
                owner.run();
                try (LanceScanner scanner = LanceScanner.create(base, keyScan(), allocator);
                        ArrowReader gained =
                                new FilteredRowsReader(allocator, scanner.scanBatches(), gainedKeys(earlierKeys))) {
                    KeyDeletes.delete(base, base.getSchema().findField(key.get(0)), gained);
                }
            } else if (deleted > 0) {
                owner.run();
                try (LanceScanner scanner = LanceScanner.create(base, keyScan(), allocator)) {
                    BaseMergeInsert.run(
                            base,
                            BaseMergeInsert.fenced(new MergeInsertParams(key))
                                    .withMatchedDelete()
                                    .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing),
                            new FilteredRowsReader(allocator, scanner.scanBatches(), gainedKeys(earlierKeys)),
                            allocator);
                }
            }
            base.checkoutLatest();
            LOG.warn(
                    "Shard {} (bucket {}): reset its rows in the base table {} to version {} ({} keys there, {} keys"
                            + " gained since deleted); base version {} -> {}",
                    shardId,
                    bucket,
                    uri,
                    version,
                    earlierKeys.size(),
                    deleted,
                    before,
                    base.version());
            return ctx.mergeProgress(shardId);
        } catch (IOException e) {
            throw new UncheckedIOException("scanning " + uri + " failed", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) { // closing a scanner
            throw new IllegalStateException("scanning " + uri + " failed", e);
        }
    }

    /**
     * Whether the gained keys must go with plain deletes: lance-core's merge-insert deletes none of
     * the rows an index on the key covers. Refused where such an index exists on a key a predicate
     * cannot name, rather than leaving rows the checkpoint does not hold.
     */
    private boolean plainDeletes(Dataset base) {
        List<String> key = ctx.table().primaryKey();
        List<String> indexes = KeyDeletes.keyIndexes(base, key);
        if (indexes.isEmpty()) {
            return false;
        }
        List<Field> fields =
                key.stream().map(c -> base.getSchema().findField(c)).toList();
        if (!KeyDeletes.supports(fields)) {
            throw new IllegalStateException("cannot reset the rows of shard " + shardId + " in "
                    + ctx.table().uri()
                    + ": the base table has an index on its key " + key + " " + indexes
                    + ", under which lance-core 7.0.0 deletes nothing by merge-insert, and a key of these columns"
                    + " cannot be written as a delete predicate. Drop the index; see docs/guarantees.md");
        }
        return true;
    }

    private Dataset checkout(Dataset base, long version) {
        try {
            return base.checkoutVersion(version);
        } catch (RuntimeException e) {
            throw new GarbageCollectedException(
                    ctx.table().uri(),
                    "base table version " + version + ", whose rows of shard " + shardId + " the checkpoint being "
                            + "restored builds on, cannot be read (" + e.getMessage() + "); it was cleaned up "
                            + "(sink.compaction cleanup, or lance's cleanup): restore a newer checkpoint");
        }
    }

    /** The key columns, and the sharding column if it is not one of them. */
    private ScanOptions keyScan() {
        List<String> columns = new ArrayList<>(ctx.table().primaryKey());
        sharding().sourceColumn().filter(c -> !columns.contains(c)).ifPresent(columns::add);
        return new ScanOptions.Builder().columns(columns).build();
    }

    /** The keys of the bucket's rows in {@code ds}, encoded. */
    private Set<ByteBuffer> keysOf(Dataset ds, BufferAllocator allocator) throws Exception {
        Set<ByteBuffer> keys = new HashSet<>();
        try (LanceScanner scanner = LanceScanner.create(ds, keyScan(), allocator);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                IntPredicate inBucket = bucketRows(batch);
                Function<Integer, ByteBuffer> keyOf = keyEncoder(batch);
                for (int row = 0; row < batch.getRowCount(); row++) {
                    if (inBucket.test(row)) {
                        keys.add(keyOf.apply(row));
                    }
                }
            }
        }
        return keys;
    }

    /** How many rows of {@code ds}'s key columns {@code filter} keeps (a merge-insert needs at least one row). */
    private long count(Dataset ds, FilteredRowsReader.RowFilter filter, BufferAllocator allocator) throws Exception {
        long count = 0;
        try (LanceScanner scanner = LanceScanner.create(ds, keyScan(), allocator);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                IntPredicate keeps = filter.on(batch);
                for (int row = 0; row < batch.getRowCount(); row++) {
                    count += keeps.test(row) ? 1 : 0;
                }
            }
        }
        return count;
    }

    /** The bucket's rows whose key {@code earlierKeys} lacks. */
    private FilteredRowsReader.RowFilter gainedKeys(Set<ByteBuffer> earlierKeys) {
        return batch -> {
            IntPredicate inBucket = bucketRows(batch);
            Function<Integer, ByteBuffer> keyOf = keyEncoder(batch);
            return row -> inBucket.test(row) && !earlierKeys.contains(keyOf.apply(row));
        };
    }

    private Function<Integer, ByteBuffer> keyEncoder(VectorSchemaRoot batch) {
        PrimaryKeyEncoder encoder = new PrimaryKeyEncoder(KeyDeletes.keyFields(ctx.table()));
        FieldVector[] keyColumns = encoder.keyColumns(batch);
        KeyBuffer buffer = new KeyBuffer();
        return row -> ByteBuffer.wrap(encoder.encode(keyColumns, row, buffer).toByteArray());
    }

    /** The rows of {@code batch} in this shard's bucket (every row, for an unsharded table). */
    private IntPredicate bucketRows(VectorSchemaRoot batch) {
        if (AppendRowKey.of(ctx.table())) {
            BigIntVector keys = (BigIntVector) batch.getVector(AppendRowKey.COLUMN);
            return row -> AppendRowKey.bucket(keys.get(row)) == bucket;
        }
        TableSharding sharding = sharding();
        if (sharding.sourceColumn().isEmpty() || sharding.numBuckets().isEmpty()) {
            return row -> true;
        }
        FieldVector column = batch.getVector(sharding.sourceColumn().get());
        BucketAssigner assigner = BucketAssigner.of(
                column.getField().getType(), sharding.numBuckets().getAsInt());
        return row -> assigner.bucketOf(column, row) == bucket;
    }

    private TableSharding sharding() {
        return ctx.table().sharding().sharding();
    }
}
