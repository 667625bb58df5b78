package io.walsink.testing;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The shard engine's writers of every bucket of a bucket-sharded {@code (id BIGINT, name STRING)}
 * table, under the shard ids and placements the sink uses, so that what they write lands in the
 * shards a bucket split reads.
 */
public final class BucketShardWriters implements AutoCloseable {
    private final TableInfo table;
    private final TableContext context;
    private final BufferAllocator allocator;
    private final int buckets;
    private List<ShardWriter> writers;

    public BucketShardWriters(String uri, BufferAllocator allocator) {
        this.table = LanceTables.open(uri, Map.of());
        this.allocator = allocator;
        this.buckets = table.sharding().sharding().numBuckets().orElseThrow();
        this.context = new TableContext(
                new TableLocation(new LocalObjectStore(Path.of(uri)), table.uri(), Map.of()),
                table,
                WalSchemaProfile.SPEC,
                ShardWriterConfig.defaults(),
                allocator);
        this.writers = open();
    }

    private List<ShardWriter> open() {
        List<ShardWriter> opened = new ArrayList<>();
        for (int b = 0; b < buckets; b++) {
            opened.add(ShardOpener.open(
                    context,
                    ShardIds.bucket(b),
                    b,
                    ShardPlacement.bucket(table.sharding().specId(), b)));
        }
        return opened;
    }

    /** An upsert of {@code name} under {@code id}, or a delete of {@code id}, to the writer of its bucket. */
    public void write(long id, String name, boolean delete) {
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(table.schema(), allocator)) {
            ((BigIntVector) rows.getVector("id")).setSafe(0, id);
            ((VarCharVector) rows.getVector("name")).setSafe(0, name.getBytes(StandardCharsets.UTF_8));
            rows.setRowCount(1);
            writers.get(BucketHash.bucketOf(BucketHash.hashLong(id), buckets)).write(rows, 0, delete);
        }
    }

    /**
     * {@code ops} seeded upserts and deletes (3 in 10) of ids in {@code [0, keys)}, named {@code
     * tag-i}, applied to {@code model} as well (id -> name, deleted ids absent), then one published
     * generation per writer.
     */
    public void writeRandomAndPublish(Random random, int ops, int keys, String tag, Map<Long, String> model) {
        for (int i = 0; i < ops; i++) {
            long id = random.nextInt(keys);
            boolean delete = random.nextInt(10) < 3;
            String name = tag + "-" + i;
            write(id, name, delete);
            if (delete) {
                model.remove(id);
            } else {
                model.put(id, name);
            }
        }
        publish();
    }

    /** One published generation per writer that has rows. */
    public void publish() {
        writers.forEach(SyncShardDriver::flushAndPublishAll);
    }

    /** Appends every writer's pending rows to its WAL, publishing nothing: what a LATEST read adds. */
    public void appendToWal() {
        writers.forEach(SyncShardDriver::appendAllPending);
    }

    /** Closes and opens the writers again: a claim drops SSTables merged into the base table. */
    public void reopen() {
        writers.forEach(ShardWriter::close);
        writers = open();
    }

    @Override
    public void close() {
        writers.forEach(ShardWriter::close);
    }
}
