package io.walsink.read;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.scan.ScanPosition;
import io.walsink.read.scan.SnapshotPart;
import io.walsink.read.scan.SnapshotRows;
import io.walsink.read.scan.SnapshotScan;
import io.walsink.read.snapshot.RowExtractor;
import io.walsink.read.snapshot.RowValues;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streamed read of a snapshot holds one base batch and the unmerged part, not the base table:
 * the rows extracted and not yet taken stay below the unmerged part's size plus one, and the
 * Arrow allocator's peak stays the same for a base twenty times larger, with the rows equal to
 * the materializing {@link TableReader}'s.
 */
class SnapshotRowsMemoryTest {
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    private static final long BATCH = 100;
    private static final int FRAGMENTS = 8;
    private static final String PAD = "x".repeat(200);

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    /** What one read held at most. */
    private record Held(long rows, long arrowPeak, List<Map<String, Object>> read) {}

    @Test
    void memoryDoesNotGrowWithTheBaseTable() {
        Held small = readTableOf(2_000);
        Held large = readTableOf(40_000);
        System.out.println("SnapshotRowsMemoryTest: Arrow peak " + small.arrowPeak() + " bytes for 2,000 base rows, "
                + large.arrowPeak() + " for 40,000; rows held at most " + small.rows() + " and " + large.rows());
        for (Held held : List.of(small, large)) {
            // 20 unmerged live rows are held from the start; one base row at a time beyond them
            assertThat(held.rows()).as("rows extracted and not yet taken").isLessThanOrEqualTo(21);
        }
        assertThat(large.arrowPeak())
                .as("Arrow peak for a base 20x larger")
                .isPositive()
                .isLessThanOrEqualTo(small.arrowPeak() + small.arrowPeak() / 2);
    }

    /**
     * A keyed table of {@code rows} base rows in {@link #FRAGMENTS} fragments, and one shard whose
     * SSTable updates 20 of them and deletes 20: read with base batches of {@link #BATCH} rows.
     */
    private Held readTableOf(int rows) {
        String uri = dir.resolve("t" + rows).toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        RowModel model = new RowModel(List.of("id", "name"), List.of("id"));
        int perFragment = rows / FRAGMENTS;
        for (int f = 0; f < FRAGMENTS; f++) {
            List<RowOp> ops = new ArrayList<>();
            for (long id = (long) f * perFragment; id < (long) (f + 1) * perFragment; id++) {
                ops.add(RowOp.put(row("id", id, "name", PAD + id)));
            }
            table.writeBase(ops);
            model.apply(ops);
        }
        List<RowOp> unmerged = new ArrayList<>();
        for (long id = 0; id < 40; id++) {
            long key = id * (rows / 40) + 1;
            unmerged.add(id % 2 == 0 ? RowOp.put(row("id", key, "name", "new")) : RowOp.delete(row("id", key)));
        }
        MemWalTable.Shard shard = table.shard();
        shard.flush(unmerged, 16);
        shard.publish();
        model.apply(unmerged);

        SnapshotReader reader =
                new SnapshotReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        TableSnapshot snapshot = reader.pin(ReadMode.COMMITTED);
        long extracted[] = {0};
        RowExtractor<Map<String, Object>> counting = (batch, row) -> {
            extracted[0]++;
            return RowValues.row(batch, List.of("id", "name"), row);
        };
        List<Map<String, Object>> read = new ArrayList<>();
        long held = 0;
        try (BufferAllocator scanAllocator = allocator.newChildAllocator("scan", 0, Long.MAX_VALUE)) {
            SnapshotScan scan = new SnapshotScan(
                    new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, scanAllocator, BATCH);
            try (SnapshotRows<Map<String, Object>> rowsRead = scan.open(
                    snapshot, SnapshotPart.whole(null), List.of("id", "name"), counting, null, ScanPosition.START)) {
                for (Map<String, Object> r = rowsRead.next(); r != null; r = rowsRead.next()) {
                    read.add(r);
                    held = Math.max(held, extracted[0] - read.size() + 1);
                }
            }
            long peak = scanAllocator.getPeakMemoryAllocation();
            assertThat(read)
                    .as("the streamed read of %s base rows", rows)
                    .containsExactlyInAnyOrderElementsOf(model.rows())
                    .containsExactlyInAnyOrderElementsOf(
                            reader.read(snapshot, RowValues.extractor(List.of("id", "name"))));
            return new Held(held, peak, read);
        }
    }
}
