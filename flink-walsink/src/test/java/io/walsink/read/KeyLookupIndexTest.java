package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.compaction.TableCompaction;
import io.walsink.read.lookup.KeyLookup;
import io.walsink.read.snapshot.LookupScans;
import io.walsink.read.snapshot.RowValues;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;

/**
 * A user creates a BTREE index on the base table's key column with lance-core (as LanceDB's
 * {@code createIndex} does): key lookups then read the base table through it, a few rows instead
 * of the whole table, as lance-core's own scan statistics show. A compaction's merges take the
 * fragments they touch out of the index; the compactor brings it up to date again, so lookups
 * after it still answer as the model and still read a handful of rows each.
 */
class KeyLookupIndexTest {
    private static final int BASE_ROWS = 20_000;
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final Map<Long, String> model = new TreeMap<>();

    @Test
    void lookupsReadTheBaseTableThroughAUsersKeyIndexBeforeAndAfterACompaction() throws Exception {
        lookUpBeforeAndAfterACompaction(Long.getLong("walsink.seed", System.nanoTime()));
    }

    /**
     * The seed whose second shard's merged deletes lance-core 7.0.0's merge-insert left in the base
     * table while the key index covered them (22 of 55 keys; the compactor now deletes them with a
     * plain delete).
     */
    @Test
    void mergedDeletesLeaveTheBaseTableThroughTheKeyIndex() throws Exception {
        lookUpBeforeAndAfterACompaction(23260005698556L);
    }

    private void lookUpBeforeAndAfterACompaction(long seed) throws Exception {
        System.out.println("KeyLookupIndexTest seed " + seed);
        Random random = new Random(seed);
        String uri = dir.resolve("t").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        List<RowOp> base = new ArrayList<>();
        for (long id = 0; id < BASE_ROWS; id++) {
            base.add(RowOp.put(row("id", id, "name", "base-" + id)));
            model.put(id, "base-" + id);
        }
        new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator).writeBase(base);
        long probe = random.nextInt(BASE_ROWS);

        LookupScans unindexed = scansOfOneLookup(uri, store, probe);
        assertThat(unindexed.rowsRead())
                .as("without an index the base table is read whole")
                .isGreaterThan(BASE_ROWS / 2);

        try (Dataset ds = LanceTables.openDataset(allocator, uri, Map.of())) {
            ds.createIndex(
                    List.of("id"),
                    IndexType.BTREE,
                    Optional.of("id_idx"),
                    IndexParams.builder()
                            .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                            .build(),
                    true);
        }
        LookupScans indexed = scansOfOneLookup(uri, store, probe);
        try (BucketShardWriters writers = new BucketShardWriters(uri, allocator)) {
            for (int g = 0; g < 2; g++) {
                // keys beyond the base too: the compaction appends rows the index does not cover
                writers.writeRandomAndPublish(random, 200, BASE_ROWS + 500, "g" + g, model);
            }
            int merged = new TableCompaction(
                            new TableLocation(store, uri, Map.of()), allocator, CompactorOptions.defaults())
                    .run()
                    .mergedGenerations();
            assertThat(merged).as("seed %s", seed).isPositive();
            writers.reopen(); // the merged SSTables leave the manifests
        }
        try (Dataset ds = LanceTables.openDataset(allocator, uri, Map.of())) {
            // lance-core's own account: the compaction's merges took fragments out of the index
            Map<String, Object> index = ds.getIndexStatistics("id_idx");
            assertThat(((Number) index.get("num_unindexed_rows")).longValue())
                    .as("rows outside the index after the compaction: %s, seed %s", index, seed)
                    .isZero();
        }
        LookupScans scans = new LookupScans();
        try (KeyLookup lookup =
                        new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO, scans);
                VectorSchemaRoot keys =
                        VectorSchemaRoot.create(new Schema(List.of(TABLE.findField("id"))), allocator)) {
            for (long id = BASE_ROWS - 50; id < BASE_ROWS + 550; id++) {
                long key = id;
                Optional<Map<String, Object>> expected =
                        Optional.ofNullable(model.get(key)).map(name -> row("id", key, "name", name));
                assertThat(lookup(lookup, keys, id))
                        .as("key %s, seed %s", id, seed)
                        .isEqualTo(expected);
            }
        }
        System.out.println("600 lookups after the compaction: " + scans);
        assertThat(scans.rowsRead())
                .as("rows read by 600 lookups, seed %s", seed)
                .isLessThan(600L * 10);
    }

    private LookupScans scansOfOneLookup(String uri, LocalObjectStore store, long id) {
        LookupScans scans = new LookupScans();
        try (KeyLookup lookup =
                        new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO, scans);
                VectorSchemaRoot keys =
                        VectorSchemaRoot.create(new Schema(List.of(TABLE.findField("id"))), allocator)) {
            assertThat(lookup(lookup, keys, id)).contains(row("id", id, "name", "base-" + id));
        }
        assertThat(scans.datasets()).as("the base table alone was scanned").isEqualTo(1);
        return scans;
    }

    private static Optional<Map<String, Object>> lookup(KeyLookup lookup, VectorSchemaRoot keys, long id) {
        ((BigIntVector) keys.getVector(0)).setSafe(0, id);
        keys.setRowCount(1);
        return lookup.lookup(keys, 0, RowValues.extractor(List.of("id", "name")));
    }
}
