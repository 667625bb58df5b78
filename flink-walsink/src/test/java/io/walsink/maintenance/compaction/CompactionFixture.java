package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.BucketHash;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MergedGenerations;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;

/**
 * A real local Lance table with two bucket shards written by the engine (spec profile, so deletes
 * are tombstones), a last-write-wins model of it, and the readers to compare against: walsink's
 * TableReader, lance-core's LsmScanner and a plain lance-core scan of the base table.
 */
public final class CompactionFixture implements AutoCloseable {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            // NOT NULL outside the key: SSTables store it nullable (spec profile), the merge must cope.
            new Field("score", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
    static final List<String> COLUMNS = List.of("id", "name", "score");
    static final int BUCKETS = 2;
    /** The ids Lance's writers derive for the buckets, as the sink's: the compactor merges their generations together. */
    static final List<UUID> SHARDS = List.of(ShardIds.bucket(0), ShardIds.bucket(1));

    final Path tablePath;
    public final String uri;
    public final BufferAllocator allocator = new RootAllocator();
    final TableInfo table;
    final LocalObjectStore store;
    final TableContext context;
    final Random random;
    /** id -> row; deleted ids absent. */
    final Map<Long, Map<String, Object>> model = new TreeMap<>();
    /** A nullable column added since the table was created ({@link #columnAdded}), or null. */
    private Field added;

    /** Thrown by a commit hook: stands for a compactor process that dies at the hooked point. */
    static final class Crash extends RuntimeException {
        Crash() {
            super("simulated compactor crash");
        }
    }

    /**
     * Writers that drop merged SSTables at their next manifest update, which the compaction tests
     * look for; {@link LanceDbAcrossMergesTest} covers the default delay.
     */
    public CompactionFixture(Path dir, long seed) {
        this(dir, seed, ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build());
    }

    CompactionFixture(Path dir, long seed, ShardWriterConfig config) {
        this.tablePath = dir.resolve("table");
        this.uri = tablePath.toString();
        this.table = LanceTables.create(uri, SCHEMA, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        this.store = new LocalObjectStore(tablePath);
        this.context = new TableContext(
                new TableLocation(store, table.uri(), Map.of()), table, WalSchemaProfile.SPEC, config, allocator);
        this.random = new Random(seed);
    }

    static int bucketOf(long id) {
        return BucketHash.bucketOf(BucketHash.hashLong(id), BUCKETS);
    }

    ShardPlacement placement(int bucket) {
        return ShardPlacement.bucket(table.sharding().specId(), bucket);
    }

    ShardWriter open(int bucket) {
        return ShardOpener.open(context, SHARDS.get(bucket), bucket, placement(bucket));
    }

    /** Bucket {@code bucket}'s shard under another id, as earlier releases named it. */
    ShardWriter openAs(UUID id, int bucket) {
        return ShardOpener.open(context, id, bucket, placement(bucket));
    }

    ShardWriter restore(ShardDescriptor asOf) {
        return ShardRestore.restore(context, asOf, placement(asOf.bucket()));
    }

    public List<ShardWriter> openAll() {
        List<ShardWriter> writers = new ArrayList<>();
        for (int b = 0; b < BUCKETS; b++) {
            writers.add(open(b));
        }
        return writers;
    }

    public TableCompaction compactor(CompactorOptions options) {
        return new TableCompaction(new TableLocation(store, uri, Map.of()), allocator, options);
    }

    TableCompaction compactor(CompactorOptions options, CommitHook hook) {
        return new TableCompaction(
                new TableLocation(store, uri, Map.of()),
                allocator,
                options,
                LeaseClaimant.standalone("compactor"),
                TableCompaction.Seams.NONE.withHook(hook));
    }

    void put(ShardWriter writer, long id, String name, int score) {
        try (VectorSchemaRoot rows = rows(id, name, score)) {
            writer.put(rows);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("score", score);
        if (added != null) {
            row.put(added.getName(), noteOf(name, score));
        }
        model.put(id, row);
    }

    void delete(ShardWriter writer, long id) {
        try (VectorSchemaRoot rows = rows(id, null, 0)) {
            writer.delete(rows);
        }
        model.remove(id);
    }

    /**
     * {@code ops} random upserts (some with a null name) and deletes over ids {@code [0, keys)},
     * each routed to the writer of its bucket; keys repeat, so generations update and delete rows
     * of earlier ones and of themselves.
     */
    public void randomOps(List<ShardWriter> writers, int ops, int keys, String tag) {
        for (int i = 0; i < ops; i++) {
            long id = random.nextInt(keys);
            ShardWriter writer = writers.get(bucketOf(id));
            if (random.nextInt(10) < 3) {
                delete(writer, id);
            } else {
                put(writer, id, random.nextInt(8) == 0 ? null : tag + "-" + i, random.nextInt(1000));
            }
        }
    }

    /** As {@link #randomOps} for one shard's writer only (ids of its bucket). */
    void randomOps(ShardWriter writer, int bucket, int ops, int keys, String tag) {
        int done = 0;
        while (done < ops) {
            long id = random.nextInt(keys);
            if (bucketOf(id) != bucket) {
                continue;
            }
            if (random.nextInt(10) < 3) {
                delete(writer, id);
            } else {
                put(writer, id, random.nextInt(8) == 0 ? null : tag + "-" + done, random.nextInt(1000));
            }
            done++;
        }
    }

    /** A writer's state at a checkpoint and the model's rows then. */
    record Checkpointed(ShardDescriptor state, Map<Long, Map<String, Object>> model) {}

    /** 30 random operations tagged {@code tag}, published as one generation, then checkpointed. */
    Checkpointed publishedRound(ShardWriter writer, int bucket, String tag) {
        randomOps(writer, bucket, 30, 60, tag);
        publishGeneration(List.of(writer));
        return new Checkpointed(writer.snapshot(), new TreeMap<>(model));
    }

    /** The model becomes the rows of {@code checkpoint}, as a restore of it makes the table. */
    void modelAt(Checkpointed checkpoint) {
        model.clear();
        model.putAll(checkpoint.model());
    }

    /** Appends, freezes, writes and publishes: one new generation per writer with rows. */
    public static void publishGeneration(List<ShardWriter> writers) {
        for (ShardWriter w : writers) {
            SyncShardDriver.flushAndPublishAll(w);
        }
    }

    VectorSchemaRoot rows(long id, String name, int score) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        ((BigIntVector) root.getVector(0)).setSafe(0, id);
        VarCharVector names = (VarCharVector) root.getVector(1);
        if (name == null) {
            names.setNull(0);
        } else {
            names.setSafe(0, name.getBytes(StandardCharsets.UTF_8));
        }
        ((IntVector) root.getVector(2)).setSafe(0, score);
        if (added != null) {
            String note = noteOf(name, score);
            VarCharVector notes = (VarCharVector) root.getVector(3);
            if (note == null) {
                notes.setNull(0);
            } else {
                notes.setSafe(0, note.getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(1);
        return root;
    }

    public List<Map<String, Object>> modelRows() {
        return new ArrayList<>(model.values());
    }

    /** walsink's merge-on-read reader, by id. */
    List<Map<String, Object>> read(ReadMode mode) {
        return byId(new SnapshotReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator)
                .read(mode)
                .rows());
    }

    /** The base table alone through a plain lance-core scan (no MemWAL), by id. */
    public List<Map<String, Object>> baseRows() {
        return byId(LanceRows.scan(allocator, uri, Map.of()));
    }

    /** lance-core's LsmScanner over the latest manifests, leaving out what the base table says is merged. */
    List<Map<String, Object>> lsmScan() {
        return lsmScan(SHARDS);
    }

    /** As {@link #lsmScan()} over the shards {@code shards}. */
    List<Map<String, Object>> lsmScan(List<UUID> shards) {
        return byId(
                LanceOracle.scan(allocator, uri, Map.of(), LanceOracle.snapshots(store, shards, merged()), columns()));
    }

    /** The base table's latest version: one more per commit. */
    long baseVersion() {
        try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            return base.version();
        }
    }

    Map<UUID, Long> merged() {
        return MergedGenerations.latest(allocator, uri, Map.of());
    }

    static List<Map<String, Object>> byId(List<Map<String, Object>> rows) {
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        return sorted;
    }

    /** A BTREE index on the key, as a user or a maintained index would add: lance-core's merge-insert then deletes none of the rows it covers. */
    void createKeyIndex() {
        try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            base.createIndex(
                    List.of("id"),
                    IndexType.BTREE,
                    Optional.of("id_idx"),
                    IndexParams.builder()
                            .setScalarIndexParams(new BTreeIndexParams.Builder().build())
                            .build(),
                    true);
        }
    }

    /**
     * The restored shard reads as {@code expected} through every reader, now and after its rows are
     * merged: LATEST, COMMITTED once published, the base table alone and lance-core's LsmScanner (an
     * oracle once every SSTable is merged: it ignores tombstones). Closes {@code restored}.
     */
    void assertRestoredTo(ShardWriter restored, Map<Long, Map<String, Object>> expected, long seed) {
        List<Map<String, Object>> rows = List.copyOf(expected.values());
        assertThat(read(ReadMode.LATEST)).as("LATEST, seed %s", seed).isEqualTo(rows);
        publishGeneration(List.of(restored));
        assertThat(read(ReadMode.COMMITTED)).as("COMMITTED, seed %s", seed).isEqualTo(rows);
        compactor(CompactorOptions.defaults()).run();
        assertThat(baseRows()).as("base table after merging, seed %s", seed).isEqualTo(rows);
        assertThat(lsmScan()).as("lance-core LsmScanner, seed %s", seed).isEqualTo(rows);
        assertThat(read(ReadMode.COMMITTED))
                .as("COMMITTED after merging, seed %s", seed)
                .isEqualTo(rows);
        restored.close();
    }

    /**
     * From now on rows are written with {@code column}, a nullable Utf8 column just added to the
     * table (ALTER TABLE ... ADD COLUMN), which {@link #put} sets from the row's other values: null
     * for a null name or a score divisible by 4. Rows of the model so far have it null.
     */
    void columnAdded(Field column) {
        added = column;
        model.values().forEach(row -> row.putIfAbsent(column.getName(), null));
    }

    private static String noteOf(String name, int score) {
        return name == null || score % 4 == 0 ? null : "note-" + score;
    }

    /** The columns rows are written with: {@link #SCHEMA}'s and the one added since, if any. */
    Schema schema() {
        if (added == null) {
            return SCHEMA;
        }
        List<Field> fields = new ArrayList<>(SCHEMA.getFields());
        fields.add(added);
        return new Schema(fields);
    }

    /** {@link #schema()}'s column names. */
    List<String> columns() {
        return schema().getFields().stream().map(Field::getName).toList();
    }

    /** LanceDB's default read of the table (one Node process), rows as strings by id. */
    List<List<String>> lanceDbRows(long seed) {
        try {
            LanceDb.Result all = LanceDb.read(tablePath, List.of(LanceDb.Query.of("all", null, columns())))
                    .get("all");
            if (all.failed()) {
                throw new AssertionError("LanceDB failed to read the table (seed " + seed + "): " + all.error());
            }
            List<List<String>> sorted = new ArrayList<>(all.rows());
            sorted.sort(Comparator.comparingLong(r -> Long.parseLong(r.get(0))));
            return sorted;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Rows as LanceDB's reads return them: values as strings in column order. */
    List<List<String>> asStrings(List<Map<String, Object>> rows) {
        List<List<String>> strings = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            List<String> values = new ArrayList<>();
            for (String column : columns()) {
                Object v = row.get(column);
                values.add(v == null ? null : v.toString());
            }
            strings.add(values);
        }
        return strings;
    }

    @Override
    public void close() {
        allocator.close();
    }
}
