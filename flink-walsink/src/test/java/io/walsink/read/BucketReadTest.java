package io.walsink.read;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.RowValues;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Reading a bucket-sharded table bucket by bucket gives exactly the whole-table read. */
class BucketReadTest {
    private static final int BUCKETS = 4;
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static int bucketOf(long id) {
        return BucketHash.bucketOf(BucketHash.hashLong(id), BUCKETS);
    }

    @Test
    void bucketReadsTogetherEqualTheWholeTable() {
        String uri = dir.resolve("table").toString();
        TableInfo table = LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        List<RowOp> base = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            base.add(RowOp.put(row("id", id, "name", "base-" + id)));
        }
        new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator).writeBase(base);

        TableContext context = new TableContext(
                new TableLocation(store, table.uri(), Map.of()),
                table,
                WalSchemaProfile.SPEC,
                ShardWriterConfig.builder().memtableMaxRows(40).build(),
                allocator);
        Map<Integer, ShardWriter> shards = new HashMap<>();
        for (int b = 0; b < BUCKETS; b++) {
            UUID id = ShardIds.bucket(b); // as the writer and Lance name the shard of a bucket
            shards.put(
                    b,
                    ShardOpener.open(
                            context,
                            id,
                            b,
                            ShardPlacement.bucket(table.sharding().specId(), b)));
        }
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(TABLE, allocator)) {
            for (long i = 0; i < 500; i++) {
                long id = (i * 37) % 400; // updates base rows and adds new keys
                ((BigIntVector) rows.getVector(0)).setSafe(0, id);
                ((VarCharVector) rows.getVector(1)).setSafe(0, ("v" + i).getBytes(StandardCharsets.UTF_8));
                rows.setRowCount(1);
                shards.get(bucketOf(id)).write(rows, 0, i % 9 == 4);
            }
        }
        for (ShardWriter shard : shards.values()) {
            appendAllPending(shard); // frozen memtables become SSTables; the rest stays in the WAL
            flushFrozen(shard);
            publishAll(shard);
            shard.close();
        }

        SnapshotReader reader =
                new SnapshotReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        List<BucketSelection> buckets = reader.bucketsReadSeparately().orElseThrow();
        assertThat(buckets).hasSize(BUCKETS);
        for (ReadMode mode : ReadMode.values()) {
            List<Map<String, Object>> whole = reader.read(mode).rows();
            List<Map<String, Object>> byBucket = new ArrayList<>();
            for (BucketSelection bucket : buckets) {
                List<Map<String, Object>> part = reader.read(mode, RowValues.extractor(List.of("id", "name")), bucket);
                assertThat(part).allSatisfy(r -> assertThat(bucketOf((Long) r.get("id")))
                        .isEqualTo(bucket.bucket()));
                byBucket.addAll(part);
            }
            assertThat(byBucket).as(mode.name()).containsExactlyInAnyOrderElementsOf(whole);
            assertThat(whole).as(mode.name()).hasSizeGreaterThan(300);
        }
    }

    @Test
    void aShardWithoutABucketEntryMeansTheTableIsReadWhole() {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable.Shard unplaced = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator).shard();
        unplaced.walEntry(List.of(RowOp.put(row("id", 1L, "name", "x"))));
        SnapshotReader reader =
                new SnapshotReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        assertThat(reader.bucketsReadSeparately()).isEmpty();
    }
}
