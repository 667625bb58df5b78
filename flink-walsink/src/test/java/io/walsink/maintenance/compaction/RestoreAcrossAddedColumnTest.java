package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.maintenance.schema.AddedColumns;
import io.walsink.read.ReadMode;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.TableContext;
import io.walsink.testing.LanceDb;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore whose reset crosses an {@code ADD COLUMN}: the base version the checkpoint builds on
 * has other columns than the latest one. Bucket 0 is restored; bucket 1 is never restored and
 * must keep what it wrote, the added column included. Every reader (walsink's LATEST and
 * COMMITTED, lance-core's scan of the base table after a final merge, LanceDB's default read) must
 * show the checkpoint's rows, with the added column null where the checkpoint has no value for it.
 */
class RestoreAcrossAddedColumnTest {
    private static final Field NOTE = Field.nullable("note", ArrowType.Utf8.INSTANCE);
    private static final List<String> COLUMNS = List.of("id", "name", "score", "note");

    /** Keys a, b, d, e of bucket 0 and c of bucket 1. */
    private static final long A = keyOf(0, 1000);

    private static final long B = keyOf(0, A + 1);
    private static final long C = keyOf(1, 1000);
    private static final long D = keyOf(0, B + 1);
    private static final long E = keyOf(0, D + 1);

    @TempDir
    Path dir;

    /**
     * Checkpoint, merges past it, ALTER, rows with the column merged, then the checkpoint from
     * before the ALTER is restored: the reset merges rows without the column into a base table that
     * has it.
     */
    @Test
    void aCheckpointFromBeforeTheAlterIsRestoredWithTheColumnNull() throws Exception {
        try (CompactionFixture f = new CompactionFixture(dir, 1)) {
            List<ShardWriter> writers = firstRows(f);
            f.compactor(CompactorOptions.defaults()).run(); // A, B in the base table the checkpoint builds on
            f.put(writers.get(0), E, "e1", 4);
            CompactionFixture.publishGeneration(writers); // drops the merged generation, records the base version
            ShardDescriptor beforeAlter = writers.get(0).snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = withNote(f.model);

            f.put(writers.get(0), A, "a2", 5);
            f.put(writers.get(0), D, "d2", 6); // a key the checkpoint does not hold
            CompactionFixture.publishGeneration(writers);
            f.compactor(CompactorOptions.defaults()).run();
            writers.forEach(ShardWriter::close);

            AddedColumns.add(f.uri, null, f.uri, Map.of(), List.of(NOTE));
            TableContext wide = wideContext(f);
            Map<Long, Map<String, Object>> model = withNote(f.model);
            List<ShardWriter> after = openAll(f, wide);
            newerValuesMerged(f, wide, after, model);

            ShardWriter restored = ShardRestore.restore(wide, beforeAlter, f.placement(0));
            Map<Long, Map<String, Object>> expected = new TreeMap<>(atCheckpoint);
            expected.put(C, model.get(C)); // bucket 1 keeps its rows and their note
            assertThat(expected.get(A)).containsEntry("name", "a1").containsEntry("note", null);

            assertRestored(f, restored, expected);
            after.get(1).close();
        }
    }

    /**
     * The reverse: a checkpoint taken after the ALTER, holding values of the column, restored once
     * the base table merged newer values of it.
     */
    @Test
    void aCheckpointFromAfterTheAlterIsRestoredWithItsValuesOfTheColumn() throws Exception {
        try (CompactionFixture f = new CompactionFixture(dir, 2)) {
            firstRows(f).forEach(ShardWriter::close);

            AddedColumns.add(f.uri, null, f.uri, Map.of(), List.of(NOTE));
            TableContext wide = wideContext(f);
            Map<Long, Map<String, Object>> model = withNote(f.model);
            List<ShardWriter> after = openAll(f, wide);
            put(wide, after.get(0), model, A, "a2", 4, "note-a2");
            CompactionFixture.publishGeneration(after);
            f.compactor(CompactorOptions.defaults()).run();
            put(wide, after.get(0), model, D, "d2", 5, null);
            CompactionFixture.publishGeneration(after);
            ShardDescriptor afterAlter = after.get(0).snapshot();
            Map<Long, Map<String, Object>> atCheckpoint = new TreeMap<>(model);

            newerValuesMerged(f, wide, after, model);

            ShardWriter restored = ShardRestore.restore(wide, afterAlter, f.placement(0));
            Map<Long, Map<String, Object>> expected = new TreeMap<>(atCheckpoint);
            expected.put(C, model.get(C));
            assertThat(expected.get(A)).containsEntry("note", "note-a2");
            assertThat(expected.get(B)).containsEntry("note", null);

            assertRestored(f, restored, expected);
            after.get(1).close();
        }
    }

    /** Both shards' writers, after a generation of a1 and b1 in bucket 0 and c1 in bucket 1 is published. */
    private static List<ShardWriter> firstRows(CompactionFixture f) {
        List<ShardWriter> writers = f.openAll();
        f.put(writers.get(0), A, "a1", 1);
        f.put(writers.get(0), B, "b1", 2);
        f.put(writers.get(1), C, "c1", 3);
        CompactionFixture.publishGeneration(writers);
        return writers;
    }

    /**
     * A, B and C upserted with values of the added column, published and merged; then bucket 0's
     * writer is closed, as the job restoring it has stopped.
     */
    private static void newerValuesMerged(
            CompactionFixture f, TableContext wide, List<ShardWriter> after, Map<Long, Map<String, Object>> model) {
        put(wide, after.get(0), model, A, "a3", 7, "note-a3");
        put(wide, after.get(0), model, B, "b3", 8, "note-b3");
        put(wide, after.get(1), model, C, "c3", 9, "note-c3");
        CompactionFixture.publishGeneration(after);
        f.compactor(CompactorOptions.defaults()).run();
        after.get(0).close();
    }

    /** The table's context as a job started after the ALTER has it: the table's columns now. */
    static TableContext wideContext(CompactionFixture f) {
        return new TableContext(
                new TableLocation(f.store, f.uri, Map.of()),
                LanceTables.open(f.uri, Map.of()),
                WalSchemaProfile.SPEC,
                ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build(),
                f.allocator);
    }

    private static List<ShardWriter> openAll(CompactionFixture f, TableContext ctx) {
        List<ShardWriter> writers = new ArrayList<>();
        for (int bucket = 0; bucket < CompactionFixture.BUCKETS; bucket++) {
            writers.add(ShardOpener.open(ctx, CompactionFixture.SHARDS.get(bucket), bucket, f.placement(bucket)));
        }
        return writers;
    }

    /** Upserts a row carrying the added column and records it in {@code model}. */
    private static void put(
            TableContext ctx,
            ShardWriter writer,
            Map<Long, Map<String, Object>> model,
            long id,
            String name,
            int score,
            String note) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(ctx.table().schema(), ctx.allocator())) {
            ((BigIntVector) root.getVector("id")).setSafe(0, id);
            ((VarCharVector) root.getVector("name")).setSafe(0, name.getBytes(StandardCharsets.UTF_8));
            ((IntVector) root.getVector("score")).setSafe(0, score);
            VarCharVector notes = (VarCharVector) root.getVector("note");
            if (note == null) {
                notes.setNull(0);
            } else {
                notes.setSafe(0, note.getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(1);
            writer.put(root);
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("score", score);
        row.put("note", note);
        model.put(id, row);
    }

    /** {@code rows} with the added column, null. */
    static Map<Long, Map<String, Object>> withNote(Map<Long, Map<String, Object>> rows) {
        Map<Long, Map<String, Object>> wide = new TreeMap<>();
        rows.forEach((id, row) -> {
            Map<String, Object> copy = new LinkedHashMap<>(row);
            copy.putIfAbsent("note", null);
            wide.put(id, copy);
        });
        return wide;
    }

    /**
     * LATEST right after the restore; COMMITTED once published; after a final merge the base table
     * alone through lance-core, COMMITTED again and LanceDB's default read. Closes {@code restored}.
     */
    private static void assertRestored(
            CompactionFixture f, ShardWriter restored, Map<Long, Map<String, Object>> expected) throws Exception {
        List<Map<String, Object>> rows = List.copyOf(expected.values());
        assertThat(f.read(ReadMode.LATEST)).as("LATEST after the restore").isEqualTo(rows);
        CompactionFixture.publishGeneration(List.of(restored));
        assertThat(f.read(ReadMode.COMMITTED)).as("COMMITTED").isEqualTo(rows);
        f.compactor(CompactorOptions.defaults()).run();
        assertThat(f.baseRows())
                .as("lance-core's scan of the base table after merging")
                .isEqualTo(rows);
        assertThat(f.read(ReadMode.COMMITTED)).as("COMMITTED after merging").isEqualTo(rows);
        LanceDb.Result all = LanceDb.read(f.tablePath, List.of(LanceDb.Query.of("all", null, COLUMNS)))
                .get("all");
        assertThat(all.error()).as("LanceDB's error").isNull();
        List<List<String>> lanceDb = new ArrayList<>(all.rows());
        lanceDb.sort((x, y) -> Long.compare(Long.parseLong(x.get(0)), Long.parseLong(y.get(0))));
        assertThat(lanceDb).as("LanceDB's default read").isEqualTo(asText(rows));
        restored.close();
    }

    private static List<List<String>> asText(List<Map<String, Object>> rows) {
        List<List<String>> text = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            List<String> row = new ArrayList<>();
            for (String c : COLUMNS) {
                Object v = r.get(c);
                row.add(v == null ? null : v.toString());
            }
            text.add(row);
        }
        return text;
    }

    /** The first id at or after {@code from} in {@code bucket}. */
    private static long keyOf(int bucket, long from) {
        long id = from;
        while (CompactionFixture.bucketOf(id) != bucket) {
            id++;
        }
        return id;
    }
}
