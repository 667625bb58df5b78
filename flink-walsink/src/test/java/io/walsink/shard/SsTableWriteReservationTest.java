package io.walsink.shard;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.io.SsTableWriter;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.shard.memtable.Memtable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SSTable write allocates only from its reservation: written from an allocator whose limit is
 * {@link SsTableWriter#reservation}, memtables of every shape the writer makes (rows all newest and
 * shared, superseded rows copied, small batches gathered, string, composite and no keys) are
 * written without reaching it. A reservation too small for any of them fails that write with
 * Arrow's OutOfMemoryException.
 */
class SsTableWriteReservationTest {
    private static final long SEED = 20261205L;

    @TempDir
    Path dir;

    private int tables;
    /** The table {@link #storage} created last. */
    private String lastUri;

    @Test
    void everyShapeIsWrittenWithinItsReservation() {
        System.out.println("SsTableWriteReservationTest seed " + SEED);
        Random random = new Random(SEED);
        String wide = "x".repeat(500);
        for (int batchRows : new int[] {8192, 512, 7}) {
            for (int keys : new int[] {8000, 3000, 40}) {
                List<RowOp> ops = new ArrayList<>();
                for (int i = 0; i < 8000; i++) {
                    long id = keys == 8000 ? i : random.nextInt(keys);
                    ops.add(
                            i % 97 == 5
                                    ? RowOp.delete(row("id", id))
                                    : RowOp.put(row("id", id, "name", wide.substring(random.nextInt(500)))));
                }
                writeWithinReservation(longKeyed(), batchRows, ops);
            }
        }
        List<RowOp> strings = new ArrayList<>();
        List<RowOp> composite = new ArrayList<>();
        List<RowOp> narrow = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            String key = "key-" + random.nextInt(2000) + "-" + "k".repeat(random.nextInt(200));
            strings.add(RowOp.put(row("k", key, "v", (long) i)));
            composite.add(RowOp.put(row("a", (long) random.nextInt(50), "b", key, "v", (long) i)));
            narrow.add(RowOp.put(row("id", (long) i, "name", "")));
        }
        writeWithinReservation(storage(List.of(utf8("k"), int64("v")), List.of("k")), 512, strings);
        writeWithinReservation(storage(List.of(int64("a"), utf8("b"), int64("v")), List.of("a", "b")), 512, composite);
        writeWithinReservation(longKeyed(), 100, narrow);
        writeWithinReservation(storage(List.of(int64("id"), utf8("name")), List.of()), 512, narrow);
    }

    private void writeWithinReservation(WalStorageSchema storage, int batchRows, List<RowOp> ops) {
        try (RootAllocator root = new RootAllocator();
                BufferAllocator memtables = root.newChildAllocator("memtables", 0, Long.MAX_VALUE);
                Memtable frozen = new Memtables(storage, memtables).frozen(1, batchRows, ops, 1)) {
            SsTableWriter writer = new SsTableWriter(
                    new TableLocation(new LocalObjectStore(Path.of(lastUri)), lastUri, Map.of()),
                    UUID.randomUUID(),
                    storage,
                    root);
            long reservation = writer.reservation(frozen);
            long peak;
            try (BufferAllocator write = root.newChildAllocator("write", reservation, reservation)) {
                WrittenSsTable written = writer.write(frozen, write);
                assertThat(written.physicalRows()).isPositive();
                peak = write.getPeakMemoryAllocation();
            }
            System.out.printf(
                    "%s, %d rows in batches of %d: payload %,d, written with at most %,d of a reservation of %,d%n",
                    storage.schema().getFields(), ops.size(), batchRows, frozen.payloadBytes(), peak, reservation);
            assertThat(peak).isLessThanOrEqualTo(reservation);
        }
    }

    private WalStorageSchema longKeyed() {
        return storage(List.of(int64("id"), utf8("name")), List.of("id"));
    }

    private WalStorageSchema storage(List<Field> fields, List<String> key) {
        String uri = dir.resolve("table-" + tables++).toString();
        lastUri = uri;
        TableInfo table = LanceTables.create(
                uri,
                new Schema(fields),
                key,
                key.isEmpty() ? TableSharding.unsharded() : TableSharding.bucket(key.get(0), 1),
                Map.of());
        return WalStorageSchema.of(table, WalSchemaProfile.SPEC);
    }

    private static Field int64(String name) {
        return Field.notNullable(name, new ArrowType.Int(64, true));
    }

    private static Field utf8(String name) {
        return name.equals("name") || name.equals("v")
                ? Field.nullable(name, ArrowType.Utf8.INSTANCE)
                : Field.notNullable(name, ArrowType.Utf8.INSTANCE);
    }
}
