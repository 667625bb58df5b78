package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.snapshot.ShardReader;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Merge-on-read against an independent model, and against lance-core's LsmScanner where it applies. */
class TableReaderTest {
    static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("score", new ArrowType.Int(32, true))));
    static final List<String> COLUMNS = List.of("id", "name", "score");

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static RowOp put(long id, String name, Integer score) {
        return RowOp.put(row("id", id, "name", name, "score", score));
    }

    private static RowOp delete(long id) {
        return RowOp.delete(row("id", id));
    }

    private String createTable() {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        return uri;
    }

    private TableReader reader(String uri) {
        return new TableReader(
                new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), WalSchemaProfile.SPEC, allocator);
    }

    @Test
    void baseSsTablesAndWalTailMergeNewestWinsWithDeletes() {
        String uri = createTable();
        MemWalTable table =
                new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        List<RowOp> base = List.of(put(1, "base", 1), put(2, "base", 2), put(3, "base", 3), put(4, "base", 4));
        List<RowOp> aGen1 = List.of(put(1, "a1", 10), put(5, "a1", 50), put(1, "a1b", 11), delete(3));
        List<RowOp> aGen2 = List.of(put(5, "a2", 51), put(7, "a2", 70), put(3, "a2", 30));
        List<RowOp> aWal = List.of(put(7, "w", 71), delete(1), put(9, "w", 90));
        List<RowOp> aWalAfterSentinel = List.of(put(11, "w2", 110), put(9, "w2", null));
        List<RowOp> bGen1 = List.of(put(2, "b1", 20), delete(4), put(6, "b1", 60));
        List<RowOp> bWal = List.of(put(4, "bw", 40), delete(6));

        table.writeBase(base);
        MemWalTable.Shard a = table.shard();
        a.flush(aGen1, 3);
        a.flush(aGen2, 2);
        a.publish();
        a.walEntry(aWal);
        a.sentinel();
        a.walEntry(aWalAfterSentinel);
        MemWalTable.Shard b = table.shard();
        b.flush(bGen1, 8);
        b.publish();
        b.walEntry(bWal);

        RowModel committed = new RowModel(COLUMNS, List.of("id"))
                .apply(base)
                .apply(aGen1)
                .apply(aGen2)
                .apply(bGen1);
        TableRows committedRows = reader(uri).read(ReadMode.COMMITTED);
        assertThat(committedRows.rows()).containsExactlyElementsOf(committed.rows());
        assertThat(committedRows.rows()).extracting(r -> r.get("id")).containsExactly(1L, 2L, 3L, 5L, 6L, 7L);

        RowModel latest = committed.apply(aWal).apply(aWalAfterSentinel).apply(bWal);
        TableRows latestRows = reader(uri).read(ReadMode.LATEST);
        assertThat(latestRows.rows()).containsExactlyElementsOf(latest.rows());
        assertThat(latestRows.rows()).extracting(r -> r.get("id")).containsExactly(2L, 3L, 4L, 5L, 7L, 9L, 11L);
        assertThat(latestRows.columns()).containsExactly("id", "name", "score");
        assertThat(latestRows.rowCount()).isEqualTo(7);
        assertThat(reader(uri).shards()).containsExactlyInAnyOrder(a.id(), b.id());

        TableRows onlyA = new ShardReader(
                        new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()),
                        a.id(),
                        WalSchemaProfile.SPEC,
                        allocator)
                .read(ReadMode.COMMITTED);
        assertThat(onlyA.rows())
                .containsExactlyElementsOf(new RowModel(COLUMNS, List.of("id"))
                        .apply(aGen1)
                        .apply(aGen2)
                        .rows());
    }

    @Test
    void lanceCoreLsmScannerAgreesOnUpsertOnlyData() {
        String uri = createTable();
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        List<RowOp> base = List.of(put(1, "base", 1), put(2, "base", 2), put(3, "base", 3));
        // Both generations update the same keys, and each updates keys within itself.
        List<RowOp> gen1 = List.of(put(1, "g1", 10), put(2, "g1", 20), put(1, "g1-again", 11), put(4, "g1", 40));
        List<RowOp> gen2 = List.of(put(2, "g2", 21), put(4, "g2", 41), put(2, "g2-again", 22), put(5, "g2", 50));
        List<RowOp> other = List.of(put(10, "o", 1), put(11, "o", 2), put(10, "o2", 3));
        table.writeBase(base);
        MemWalTable.Shard s = table.shard();
        s.flush(gen1, 2);
        s.flush(gen2, 3);
        s.publish();
        MemWalTable.Shard t = table.shard();
        t.flush(other, 2);
        t.publish();

        List<Map<String, Object>> model = new RowModel(COLUMNS, List.of("id"))
                .apply(base)
                .apply(gen1)
                .apply(gen2)
                .apply(other)
                .rows();
        List<Map<String, Object>> lance = LanceOracle.scan(
                allocator, uri, Map.of(), LanceOracle.snapshots(store, Set.of(s.id(), t.id())), COLUMNS);
        lance.sort(Comparator.comparingLong(r -> (Long) r.get("id")));

        assertThat(lance).containsExactlyElementsOf(model);
        assertThat(reader(uri).read(ReadMode.COMMITTED).rows()).containsExactlyElementsOf(model);
    }

    @Test
    void lanceCoreSeesDeletedRowsBecauseItIgnoresTombstones() {
        String uri = createTable();
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        table.writeBase(List.of(put(1, "base", 1)));
        MemWalTable.Shard s = table.shard();
        s.flush(List.of(delete(1), put(2, "x", 2)), 4);
        s.publish();

        assertThat(reader(uri).read(ReadMode.COMMITTED).rows()).containsExactly(row("id", 2L, "name", "x", "score", 2));
        // Documents lance-core 7.0.0's behaviour (format.md section 8): the tombstone reads as a live row.
        List<Map<String, Object>> lance =
                LanceOracle.scan(allocator, uri, Map.of(), LanceOracle.snapshots(store, Set.of(s.id())), COLUMNS);
        assertThat(lance)
                .containsExactlyInAnyOrder(
                        row("id", 1L, "name", null, "score", null), row("id", 2L, "name", "x", "score", 2));
    }

    @Test
    void shardWithoutPublishedSsTablesReadsOnlyItsWalInLatestMode() {
        String uri = createTable();
        MemWalTable table =
                new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        MemWalTable.Shard s = table.shard();
        s.sentinel();
        s.walEntry(List.of(put(3, "w", 3), put(1, "w", 1)));
        // Flushed but never published: invisible in both modes; its WAL entry is what LATEST shows.
        s.flush(List.of(put(2, "unpublished", 2)), 4);

        assertThat(reader(uri).read(ReadMode.COMMITTED).rows()).isEmpty();
        assertThat(reader(uri).read(ReadMode.LATEST).rows())
                .containsExactly(
                        row("id", 1L, "name", "w", "score", 1),
                        row("id", 2L, "name", "unpublished", "score", 2),
                        row("id", 3L, "name", "w", "score", 3));
    }

    @Test
    void compositeKeysMergeAndSortByKeyBytes() {
        Schema schema = new Schema(List.of(
                Field.notNullable("region", ArrowType.Utf8.INSTANCE),
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
        String uri = dir.resolve("composite").toString();
        LanceTables.create(uri, schema, List.of("region", "id"), TableSharding.unsharded(), Map.of());
        MemWalTable table =
                new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        List<RowOp> gen1 = List.of(
                RowOp.put(row("region", "b", "id", 1L, "name", "b1")),
                RowOp.put(row("region", "a", "id", 2L, "name", "a2")),
                RowOp.put(row("region", "ab", "id", 1L, "name", "ab1")),
                RowOp.put(row("region", "a", "id", 1L, "name", "a1")),
                RowOp.put(row("region", "b", "id", 1L, "name", "b1-new")));
        List<RowOp> wal = List.of(
                RowOp.delete(row("region", "a", "id", 2L)), RowOp.put(row("region", "a", "id", -5L, "name", "a-5")));
        MemWalTable.Shard s = table.shard();
        s.flush(gen1, 2);
        s.publish();
        s.walEntry(wal);

        List<String> columns = List.of("region", "id", "name");
        TableReader reader = new TableReader(
                new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        assertThat(reader.read(ReadMode.COMMITTED).rows())
                .containsExactlyElementsOf(new RowModel(columns, List.of("region", "id"))
                        .apply(gen1)
                        .rows());
        TableRows latest = reader.read(ReadMode.LATEST);
        assertThat(latest.primaryKey()).containsExactly("region", "id");
        assertThat(latest.rows())
                .containsExactly(
                        row("region", "a", "id", -5L, "name", "a-5"),
                        row("region", "a", "id", 1L, "name", "a1"),
                        row("region", "ab", "id", 1L, "name", "ab1"),
                        row("region", "b", "id", 1L, "name", "b1-new"));
    }
}
