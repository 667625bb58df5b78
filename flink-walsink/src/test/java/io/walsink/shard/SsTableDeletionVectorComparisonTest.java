package io.walsink.shard;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.io.SsTableWriterTest;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.NewestRowsReader;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.LanceRows;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.operation.Delete;

/**
 * The format's alternative SSTable layout, all rows plus a deletion vector on fragment 0 hiding
 * superseded rows, produced through lance-core's Java API ({@code Fragment.deleteRows} + a
 * {@code Delete} commit), and checked to read the same as newest-only. Prints timings for the
 * report; asserts only equality.
 */
class SsTableDeletionVectorComparisonTest {
    private static final int ROWS = 200_000;
    private static final int KEYS = 100_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator root = allocators.allocator();

    @Test
    void deletionVectorReadsLikeNewestOnly() throws Exception {
        String uri = dir.resolve("table").toString();
        TableInfo table =
                LanceTables.create(uri, SsTableWriterTest.TABLE, List.of("id"), TableSharding.unsharded(), Map.of());
        WalStorageSchema storage = WalStorageSchema.of(table, WalSchemaProfile.SPEC);
        List<RowOp> ops = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            ops.add(RowOp.put(row("id", (long) (i * 7919L % KEYS), "name", "v" + i, "score", i)));
        }
        UUID shard = UUID.randomUUID();
        try (Memtable frozen = new Memtables(storage, root).frozen(1, 8192, ops, 1)) {
            SsTableWriter writer = new SsTableWriter(
                    new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root);
            writer.write(frozen); // warm-up of the native write path
            long t0 = System.nanoTime();
            WrittenSsTable newestOnly = writer.write(frozen);
            long newestOnlyNanos = System.nanoTime() - t0;

            String dvUri = TableLocation.ssTableUri(uri, shard, "0000dead_gen_1");
            long t1 = System.nanoTime();
            long written;
            try (NewestRowsReader all = new NewestRowsReader(root, frozen, storage.schema(), true);
                    Dataset ds = Dataset.write()
                            .allocator(root)
                            .reader(all)
                            .uri(dvUri)
                            .maxRowsPerFile(Integer.MAX_VALUE)
                            .execute()) {
                written = all.rowsRead();
                long t2 = System.nanoTime();
                FragmentMetadata updated = new Fragment(ds, 0).deleteRows(supersededRows(frozen, storage));
                Transaction delete = new Transaction.Builder()
                        .readVersion(ds.version())
                        .operation(Delete.builder()
                                .updatedFragments(List.of(updated))
                                .predicate("superseded rows")
                                .build())
                        .build();
                new CommitBuilder(ds).execute(delete).close();
                delete.close();
                long t3 = System.nanoTime();
                System.out.printf(
                        "SSTABLE-TIMING rows=%d keys=%d newestOnly=%d ms (%d rows); allRows=%d ms (%d rows)"
                                + " + deletionVector=%d ms%n",
                        ROWS,
                        KEYS,
                        newestOnlyNanos / 1_000_000,
                        newestOnly.physicalRows(),
                        (t2 - t1) / 1_000_000,
                        written,
                        (t3 - t2) / 1_000_000);
            }
            assertThat(written).isEqualTo(ROWS);
            List<Map<String, Object>> viaDeletionVector = LanceRows.scan(root, dvUri, Map.of());
            List<Map<String, Object>> viaNewestOnly =
                    LanceRows.scan(root, TableLocation.ssTableUri(uri, shard, newestOnly.path()), Map.of());
            assertThat(viaDeletionVector).hasSize(KEYS).isEqualTo(viaNewestOnly);
        }
    }

    /** Row offsets in fragment 0 (= memtable positions, all rows written) that are not the newest of their key. */
    private static List<Integer> supersededRows(Memtable m, WalStorageSchema storage) {
        PrimaryKeyEncoder keys = new PrimaryKeyEncoder(List.of(storage.schema().findField("id")));
        KeyBuffer key = new KeyBuffer();
        List<Integer> superseded = new ArrayList<>();
        for (int b = 0; b < m.sealedBatches().size(); b++) {
            VectorSchemaRoot batch = m.sealedBatches().get(b);
            FieldVector[] columns = keys.keyColumns(batch);
            for (int r = 0; r < batch.getRowCount(); r++) {
                long position = m.batchStartRow(b) + r;
                keys.encode(columns, r, key);
                if (!m.isNewest(position, key.array(), key.length())) {
                    superseded.add((int) position);
                }
            }
        }
        return superseded;
    }
}
