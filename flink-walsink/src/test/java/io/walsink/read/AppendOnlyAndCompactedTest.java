package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.FormatException;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.snapshot.CompactedSsTables;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.ArrowRows;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.memwal.MergedGeneration;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;

class AppendOnlyAndCompactedTest {
    private static final List<String> COLUMNS = TableReaderTest.COLUMNS;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static RowOp put(long id, String name, Integer score) {
        return RowOp.put(row("id", id, "name", name, "score", score));
    }

    @Test
    void appendOnlyTableReturnsEveryRowInReadOrder() {
        String uri = dir.resolve("log").toString();
        // No primary key: LanceTables refuses such a table, so it is created with lance-core directly.
        Dataset.create(
                        allocator,
                        uri,
                        TableReaderTest.TABLE,
                        new WriteParams.Builder()
                                .withMode(WriteParams.WriteMode.CREATE)
                                .build())
                .close();
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        assertThat(table.storage().primaryKey()).isEmpty();
        List<RowOp> base = List.of(put(9, "base", 1));
        List<RowOp> gen1 = List.of(put(1, "x", 1), put(1, "x", 1), put(0, "y", null));
        List<RowOp> gen2 = List.of(put(1, "x", 2));
        List<RowOp> wal = List.of(put(1, "x", 1));
        table.writeBase(base);
        MemWalTable.Shard s = table.shard();
        s.flush(gen1, 2);
        s.flush(gen2, 2);
        s.publish();
        s.walEntry(wal);

        TableReader reader = new TableReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        TableRows committed = reader.read(ReadMode.COMMITTED);
        assertThat(committed.primaryKey()).isEmpty();
        assertThat(committed.rows())
                .containsExactlyElementsOf(new RowModel(COLUMNS, List.of())
                        .apply(base)
                        .apply(gen1)
                        .apply(gen2)
                        .rows());
        assertThat(reader.read(ReadMode.LATEST).rows())
                .containsExactlyElementsOf(new RowModel(COLUMNS, List.of())
                        .apply(base)
                        .apply(gen1)
                        .apply(gen2)
                        .apply(wal)
                        .rows());
    }

    @Test
    void ssTablesCompactedIntoTheBaseTableAreSkipped() throws Exception {
        String uri = dir.resolve("table").toString();
        LanceTables.create(uri, TableReaderTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        MemWalTable.Shard s = table.shard();
        s.flush(List.of(put(1, "gen1", 1), put(2, "gen1", 2)), 4);
        s.flush(List.of(put(3, "gen2", 3)), 4);
        s.publish();
        // Compaction as lance-core records it: merge rows into the base table and mark generation 1
        // merged. The merged rows deliberately differ from generation 1 (and leave key 2 out), so
        // reading generation 1 again would show.
        mergeIntoBase(uri, List.of(put(1, "compacted", 100)), s.id(), 1);

        try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            assertThat(CompactedSsTables.of(base, uri)).containsExactly(Map.entry(s.id(), 1L));
        }
        List<Map<String, Object>> rows = new TableReader(
                        new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator)
                .read(ReadMode.COMMITTED)
                .rows();
        assertThat(rows)
                .containsExactly(
                        row("id", 1L, "name", "compacted", "score", 100), row("id", 3L, "name", "gen2", "score", 3));

        // lance-core's LsmScanner applies what the snapshots name: it does not drop merged
        // generations itself, so a snapshot still listing generation 1 shows its rows again.
        List<Map<String, Object>> stale =
                LanceOracle.scan(allocator, uri, Map.of(), LanceOracle.snapshots(store, Set.of(s.id())), COLUMNS);
        assertThat(stale)
                .containsExactlyInAnyOrder(
                        row("id", 1L, "name", "gen1", "score", 1),
                        row("id", 2L, "name", "gen1", "score", 2),
                        row("id", 3L, "name", "gen2", "score", 3));
        List<Map<String, Object>> current = LanceOracle.scan(
                allocator, uri, Map.of(), LanceOracle.snapshots(store, Set.of(s.id()), Map.of(s.id(), 1L)), COLUMNS);
        assertThat(current).containsExactlyInAnyOrderElementsOf(rows);
    }

    @Test
    void indexDetailsOfAnotherTypeAreRejected() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(bytes);
        out.writeString(1, "/lance.index.BTreeIndexDetails");
        out.flush();
        assertThatThrownBy(() -> CompactedSsTables.decodeAny(bytes.toByteArray(), "somewhere"))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining("somewhere")
                .hasMessageContaining("BTree");
        assertThatThrownBy(() -> CompactedSsTables.decodeAny(new byte[] {0x12, 0x7f}, "truncated"))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining("truncated");
    }

    private void mergeIntoBase(String uri, List<RowOp> rows, UUID shard, long generation) throws Exception {
        ByteArrayOutputStream ipc = new ByteArrayOutputStream();
        try (Dataset ds = LanceTables.openDataset(allocator, uri, Map.of())) {
            try (VectorSchemaRoot root = ArrowRows.batch(
                            allocator,
                            ds.getSchema(),
                            rows.stream().map(RowOp::values).toList());
                    ArrowStreamWriter writer = new ArrowStreamWriter(root, null, ipc)) {
                writer.start();
                writer.writeBatch();
                writer.end();
            }
            MergeInsertParams params = new MergeInsertParams(List.of("id"))
                    .withMatchedUpdateAll()
                    .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll)
                    .markGenerationsAsMerged(List.of(new MergedGeneration(shard.toString(), generation)));
            try (ArrowStreamReader reader =
                            new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator);
                    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
                Data.exportArrayStream(allocator, reader, stream);
                MergeInsertResult result = ds.mergeInsert(params, stream);
                result.dataset().close();
            }
        }
    }
}
