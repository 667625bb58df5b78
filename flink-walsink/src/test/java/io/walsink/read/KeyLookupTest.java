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
import io.walsink.read.snapshot.RowValues;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.CountingObjectStore;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.charset.StandardCharsets;
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
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every key of a last-write-wins model, and keys the table never had, looked up one by one: base
 * rows, several published generations per shard that update and delete keys, a compaction into
 * the base table and the writers dropping the merged generations afterwards. One lookup stays
 * open throughout (it must notice each change), and a fresh one is checked beside it.
 */
class KeyLookupTest {
    private static final int BUCKETS = 4;
    private static final int KEYS = 100;
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    private static final List<String> COLUMNS = List.of("id", "name");

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    /** id -> name as written; deleted ids absent. */
    private final Map<Long, String> model = new TreeMap<>();

    private Random random;
    private String uri;
    private LocalObjectStore store;
    private BucketShardWriters writers;

    @RepeatedTest(2)
    void everyKeyReadsAsTheModelAcrossGenerationsAndACompaction() {
        long seed = System.nanoTime();
        System.out.println("KeyLookupTest seed " + seed);
        random = new Random(seed);
        uri = dir.resolve("t").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        List<RowOp> base = new ArrayList<>();
        for (long id = 0; id < 60; id++) {
            base.add(RowOp.put(row("id", id, "name", "base-" + id)));
            model.put(id, "base-" + id);
        }
        new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator).writeBase(base);
        writers = new BucketShardWriters(uri, allocator);

        try (KeyLookup open = new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO)) {
            assertThat(open.numBuckets()).hasValue(BUCKETS);
            assertThat(open.primaryKey()).containsExactly("id");
            checkEveryKey(open, "base only", seed);
            for (int g = 1; g <= 3; g++) {
                writers.writeRandomAndPublish(random, 80, KEYS, "g" + g, model);
                checkEveryKey(open, "after g" + g, seed);
            }
            int merged = new TableCompaction(
                            new TableLocation(store, uri, Map.of()), allocator, CompactorOptions.defaults())
                    .run()
                    .mergedGenerations();
            assertThat(merged).as("seed %s", seed).isPositive();
            checkEveryKey(open, "compacted, merged SSTables still listed", seed);
            writers.reopen(); // a claim drops the merged SSTables from the manifests
            checkEveryKey(open, "merged SSTables dropped", seed);
            for (int g = 4; g <= 5; g++) {
                writers.writeRandomAndPublish(random, 80, KEYS, "g" + g, model);
                checkEveryKey(open, "after g" + g, seed);
            }
        } finally {
            writers.close();
        }
    }

    @Test
    void aStringKeyWithQuotesInAnUnshardedTable() {
        uri = dir.resolve("s").toString();
        Schema schema = new Schema(List.of(
                Field.notNullable("k", ArrowType.Utf8.INSTANCE), Field.nullable("v", new ArrowType.Int(64, true))));
        LanceTables.create(uri, schema, List.of("k"), TableSharding.unsharded(), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        table.writeBase(List.of(RowOp.put(row("k", "it's", "v", 1L)), RowOp.put(row("k", "plain", "v", 2L))));
        MemWalTable.Shard shard = table.shard(); // names no bucket: read for every key
        shard.flush(List.of(RowOp.put(row("k", "it's", "v", 10L)), RowOp.delete(row("k", "plain"))), 4);
        shard.publish();
        try (KeyLookup lookup = new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO)) {
            assertThat(lookup.numBuckets()).isEmpty();
            assertThat(stringLookup(lookup, schema, "it's")).contains(row("k", "it's", "v", 10L));
            assertThat(stringLookup(lookup, schema, "plain")).as("deleted").isEmpty();
            assertThat(stringLookup(lookup, schema, "it")).isEmpty();
        }
    }

    /**
     * An unsharded table has one shard; once a lookup found it, a probe (checking versions at every
     * probe) costs the two existence checks of the shard's manifest version: no listing of the
     * shards and no manifest read, which made every probe of such a table a listing plus a read per
     * shard. A generation published later is still seen at the next probe.
     */
    @Test
    void aProbeOfAnUnshardedTableChecksTheManifestVersionWithoutListing() {
        uri = dir.resolve("u").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        table.writeBase(List.of(RowOp.put(row("id", 1L, "name", "base"))));
        MemWalTable.Shard shard = table.shard();
        shard.flush(List.of(RowOp.put(row("id", 2L, "name", "sstable"))), 4);
        shard.publish();
        CountingObjectStore counting = new CountingObjectStore(store);
        int probes = 30;
        try (KeyLookup lookup = new KeyLookup(new TableLocation(counting, uri, Map.of()), allocator, Duration.ZERO);
                VectorSchemaRoot keys =
                        VectorSchemaRoot.create(new Schema(List.of(TABLE.findField("id"))), allocator)) {
            assertThat(idLookup(lookup, keys, 1)).contains(row("id", 1L, "name", "base"));
            long lists = counting.listPages();
            long gets = counting.gets();
            long heads = counting.heads();
            for (int i = 0; i < probes; i++) {
                long id = 1 + i % 3;
                assertThat(idLookup(lookup, keys, id))
                        .as("key %s", id)
                        .isEqualTo(
                                id == 3
                                        ? Optional.empty()
                                        : Optional.of(row("id", id, "name", id == 1 ? "base" : "sstable")));
            }
            assertThat(counting.listPages() - lists)
                    .as("listings in %s probes", probes)
                    .isZero();
            assertThat(counting.gets() - gets)
                    .as("objects read in %s probes", probes)
                    .isZero();
            assertThat(counting.heads() - heads)
                    .as("existence checks in %s probes", probes)
                    .isLessThanOrEqualTo(2L * probes);

            shard.flush(List.of(RowOp.put(row("id", 3L, "name", "later"))), 4);
            shard.publish();
            assertThat(idLookup(lookup, keys, 3)).contains(row("id", 3L, "name", "later"));
        }
    }

    private Optional<Map<String, Object>> idLookup(KeyLookup lookup, VectorSchemaRoot keys, long id) {
        ((BigIntVector) keys.getVector(0)).setSafe(0, id);
        keys.setRowCount(1);
        return lookup.lookup(keys, 0, RowValues.extractor(COLUMNS));
    }

    /** Long.MIN_VALUE has no SQL literal (its negation overflows): that key is read without a filter. */
    @Test
    void aKeyWithoutALiteralIsMatchedWhileReading() {
        uri = dir.resolve("m").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        table.writeBase(
                List.of(RowOp.put(row("id", Long.MIN_VALUE, "name", "min")), RowOp.put(row("id", 5L, "name", "five"))));
        MemWalTable.Shard shard = table.shard();
        shard.flush(List.of(RowOp.put(row("id", Long.MIN_VALUE, "name", "min2"))), 4);
        shard.publish();
        try (KeyLookup lookup = new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO);
                VectorSchemaRoot keys =
                        VectorSchemaRoot.create(new Schema(List.of(TABLE.findField("id"))), allocator)) {
            keys.setRowCount(1);
            for (long id : new long[] {Long.MIN_VALUE, 5L, Long.MAX_VALUE}) {
                ((BigIntVector) keys.getVector(0)).setSafe(0, id);
                Optional<Map<String, Object>> expected = id == Long.MIN_VALUE
                        ? Optional.of(row("id", id, "name", "min2"))
                        : id == 5L ? Optional.of(row("id", id, "name", "five")) : Optional.empty();
                assertThat(lookup.lookup(keys, 0, RowValues.extractor(COLUMNS)))
                        .as("key %s", id)
                        .isEqualTo(expected);
            }
        }
    }

    private Optional<Map<String, Object>> stringLookup(KeyLookup lookup, Schema schema, String key) {
        try (VectorSchemaRoot keys = VectorSchemaRoot.create(new Schema(List.of(schema.findField("k"))), allocator)) {
            ((VarCharVector) keys.getVector(0)).setSafe(0, key.getBytes(StandardCharsets.UTF_8));
            keys.setRowCount(1);
            return lookup.lookup(keys, 0, RowValues.extractor(List.of("k", "v")));
        }
    }

    /** Keys [0, KEYS + 10): the model's row, or nothing; through {@code open} and a fresh lookup. */
    private void checkEveryKey(KeyLookup open, String when, long seed) {
        try (KeyLookup fresh = new KeyLookup(new TableLocation(store, uri, Map.of()), allocator, Duration.ZERO);
                VectorSchemaRoot keys =
                        VectorSchemaRoot.create(new Schema(List.of(TABLE.findField("id"))), allocator)) {
            keys.setRowCount(1);
            for (long id = 0; id < KEYS + 10; id++) {
                long key = id;
                ((BigIntVector) keys.getVector(0)).setSafe(0, key);
                Optional<Map<String, Object>> expected =
                        Optional.ofNullable(model.get(key)).map(name -> row("id", key, "name", name));
                for (KeyLookup lookup : List.of(open, fresh)) {
                    assertThat(lookup.lookup(keys, 0, RowValues.extractor(COLUMNS)))
                            .as("key %s %s (%s lookup), seed %s", id, when, lookup == open ? "open" : "fresh", seed)
                            .isEqualTo(expected);
                }
            }
        }
    }
}
