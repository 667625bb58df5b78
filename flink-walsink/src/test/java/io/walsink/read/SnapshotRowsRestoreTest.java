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
import io.walsink.read.snapshot.BucketSelection;
import io.walsink.read.snapshot.RowValues;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowModel;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * A streamed read stopped after any number of rows and opened again at its position returns
 * exactly the rest: across base fragments with deletion files, batch boundaries, the bucket
 * filter, keys the unmerged part overrides or deletes, and the unmerged part itself.
 */
class SnapshotRowsRestoreTest {
    private static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    private static final List<String> COLUMNS = List.of("id", "name");
    private static final int BUCKETS = 3;

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void aReadOpenedAtItsPositionReturnsExactlyTheRest() {
        check(null);
    }

    /** Offsets into a filtered fragment scan count the rows the filter keeps. */
    @Test
    void withABaseFilterToo() {
        check("`id` % 4 <> 1 AND `name` <> 'base-50'");
    }

    private void check(String filter) {
        long seed = System.nanoTime();
        System.out.println("SnapshotRowsRestoreTest seed " + seed);
        Random random = new Random(seed);
        String uri = dir.resolve("t").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", BUCKETS), Map.of());
        LocalObjectStore store = new LocalObjectStore(Path.of(uri));
        MemWalTable table = new MemWalTable(uri, Map.of(), store, WalSchemaProfile.SPEC, allocator);
        RowModel model = new RowModel(COLUMNS, List.of("id"));
        for (int f = 0; f < 3; f++) {
            List<RowOp> ops = new ArrayList<>();
            for (long id = f * 40L; id < (f + 1) * 40L; id++) {
                ops.add(RowOp.put(row("id", id, "name", "base-" + id)));
            }
            table.writeBase(ops);
            model.apply(ops);
        }
        try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            base.delete("id % 7 = 3"); // deletion files in every fragment
        }
        for (long id = 3; id < 120; id += 7) {
            model.apply(RowOp.delete(row("id", id)));
        }
        // the writers of every bucket: 20 ops published, 10 more only in their WAL (read in LATEST)
        try (BucketShardWriters writers = new BucketShardWriters(uri, allocator)) {
            for (int i = 0; i < 30; i++) {
                long id = random.nextInt(140);
                boolean delete = random.nextInt(3) == 0;
                writers.write(id, "new-" + i, delete);
                model.apply(delete ? RowOp.delete(row("id", id)) : RowOp.put(row("id", id, "name", "new-" + i)));
                if (i == 19) {
                    writers.publish();
                }
            }
            writers.appendToWal();
        }

        SnapshotReader reader =
                new SnapshotReader(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator);
        TableSnapshot snapshot = reader.pin(ReadMode.LATEST);
        SnapshotScan scan =
                new SnapshotScan(new TableLocation(store, uri, Map.of()), WalSchemaProfile.SPEC, allocator, 7);
        List<Map<String, Object>> all = new ArrayList<>();
        for (int b = 0; b < BUCKETS; b++) {
            SnapshotPart part = SnapshotPart.whole(new BucketSelection("id", BUCKETS, b));
            List<Map<String, Object>> whole =
                    read(scan, snapshot, part, filter, ScanPosition.START, -1).rows();
            TreeSet<Integer> cuts = new TreeSet<>(List.of(0, whole.size()));
            while (cuts.size() < Math.min(whole.size() + 1, 8)) {
                cuts.add(random.nextInt(whole.size() + 1));
            }
            for (int cut : cuts) {
                Read first = read(scan, snapshot, part, filter, ScanPosition.START, cut);
                List<Map<String, Object>> resumed = new ArrayList<>(first.rows());
                resumed.addAll(
                        read(scan, snapshot, part, filter, first.position(), -1).rows());
                assertThat(resumed)
                        .as("bucket %s cut after %s rows at %s, seed %s", b, cut, first.position(), seed)
                        .containsExactlyElementsOf(whole);
            }
            all.addAll(whole);
        }
        if (filter == null) {
            assertThat(all).as("seed %s", seed).containsExactlyInAnyOrderElementsOf(model.rows());
        } else {
            assertThat(all)
                    .as("base rows the filter drops are not read, seed %s", seed)
                    .doesNotContain(Map.of("id", 50L, "name", "base-50"), Map.of("id", 1L, "name", "base-1"));
        }
    }

    private record Read(List<Map<String, Object>> rows, ScanPosition position) {}

    /** At most {@code limit} rows (all when negative) from {@code from}, and where they end. */
    private static Read read(
            SnapshotScan scan, TableSnapshot snapshot, SnapshotPart part, String filter, ScanPosition from, int limit) {
        TableSnapshot ofPart = snapshot.forBucket(part.bucket().bucket());
        try (SnapshotRows<Map<String, Object>> rows =
                scan.open(ofPart, part, COLUMNS, RowValues.extractor(COLUMNS), filter, from)) {
            List<Map<String, Object>> read = new ArrayList<>();
            while (limit < 0 || read.size() < limit) {
                Map<String, Object> row = rows.next();
                if (row == null) {
                    break;
                }
                read.add(row);
            }
            return new Read(read, rows.position());
        }
    }
}
