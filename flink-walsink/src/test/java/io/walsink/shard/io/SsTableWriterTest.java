package io.walsink.shard.io;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.NewestRowsReader;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.LanceRows;
import io.walsink.testing.Memtables;
import io.walsink.testing.RowOp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.file.LanceFileReader;
import org.lance.schema.LanceField;

public class SsTableWriterTest {
    public static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.nullable("name", ArrowType.Utf8.INSTANCE),
            Field.nullable("score", new ArrowType.Int(32, true))));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator root = allocators.allocator();
    private final UUID shard = UUID.randomUUID();
    private String uri;
    private TableInfo table;
    private WalStorageSchema storage;

    @BeforeEach
    void createTable() {
        uri = dir.resolve("table").toString();
        table = LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        storage = WalStorageSchema.of(table, WalSchemaProfile.SPEC);
    }

    private static List<RowOp> updatesAndADelete() {
        return List.of(
                RowOp.put(row("id", 1L, "name", "a", "score", 1)),
                RowOp.put(row("id", 2L, "name", "b", "score", 2)),
                RowOp.put(row("id", 3L, "name", "c", "score", 3)),
                RowOp.put(row("id", 1L, "name", "a2", "score", 10)),
                RowOp.delete(row("id", 2L)),
                RowOp.put(row("id", 4L, "name", "d", "score", null)),
                RowOp.put(row("id", 3L, "name", "c2", "score", 30)));
    }

    @Test
    void writesTheNewestRowPerKeyInForwardInsertOrderKeepingTombstones() {
        WrittenSsTable written;
        try (BufferAllocator memory = root.newChildAllocator("memtable", 0, Long.MAX_VALUE);
                Memtable frozen = new Memtables(storage, memory).frozen(1, 3, updatesAndADelete(), 7)) {
            written = new SsTableWriter(
                            new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root)
                    .write(frozen);

            assertThat(written.generation()).isEqualTo(1);
            assertThat(written.path()).matches("[0-9a-f]{8}_gen_1");
            assertThat(written.lastWalPosition()).isEqualTo(7);
            assertThat(written.physicalRows()).isEqualTo(4);
            assertThat(written.inMemoryBytes()).isEqualTo(frozen.payloadBytes()).isPositive();
            assertThat(written.primaryKeyBytes())
                    .isEqualTo(frozen.primaryKeyIndexBytes())
                    .isPositive();
        }
        Path folder = dir.resolve("table/_mem_wal/" + shard + "/" + written.path());
        assertThat(folder).isDirectory();
        assertThat(LanceRows.scan(root, folder.toString(), Map.of()))
                .containsExactly(
                        row("id", 1L, "name", "a2", "score", 10, "_tombstone", false),
                        row("id", 2L, "name", null, "score", null, "_tombstone", true),
                        row("id", 4L, "name", "d", "score", null, "_tombstone", false),
                        row("id", 3L, "name", "c2", "score", 30, "_tombstone", false));
    }

    @Test
    void copiedAndSharedBatchesGiveTheSameSsTable() {
        // Batches [1,2,3] [1,del 2,4] [3]: the first loses rows (copied), the last two survive whole.
        // From a separate root allocator nothing can be shared, so every batch is copied.
        try (BufferAllocator sameRoot = root.newChildAllocator("memtable", 0, Long.MAX_VALUE);
                BufferAllocator otherRoot = new RootAllocator();
                Memtable shared = new Memtables(storage, sameRoot).frozen(1, 3, updatesAndADelete(), 1);
                Memtable copied = new Memtables(storage, otherRoot).frozen(2, 3, updatesAndADelete(), 1)) {
            SsTableWriter writer = new SsTableWriter(
                    new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root);
            WrittenSsTable a = writer.write(shared);
            WrittenSsTable b = writer.write(copied);
            assertThat(LanceRows.scan(root, sstableUri(a), Map.of()))
                    .isEqualTo(LanceRows.scan(root, sstableUri(b), Map.of()))
                    .hasSize(4);
        }
    }

    @Test
    void everyKeyOfTheSsTableIsInItsPrimaryKeyIndexWithItsRowOffset() throws Exception {
        WrittenSsTable written;
        try (Memtable frozen = new Memtables(storage, root).frozen(5, 3, updatesAndADelete(), 1)) {
            written = new SsTableWriter(
                            new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root)
                    .write(frozen);
        }
        Map<Long, Long> offsetByKey = new TreeMap<>();
        List<Map<String, Object>> rows = LanceRows.scan(root, sstableUri(written), Map.of());
        for (int i = 0; i < rows.size(); i++) {
            offsetByKey.put((Long) rows.get(i).get("id"), (long) i);
        }
        assertThat(offsetByKey).hasSize(4); // the deleted key's tombstone is indexed too

        Map<Long, Long> indexed = new TreeMap<>();
        List<Long> order = new ArrayList<>();
        String pageData = sstableUri(written) + "/_pk_index/page_data.lance";
        try (LanceFileReader file = LanceFileReader.open(pageData, root);
                ArrowReader batches = file.readAll(List.of("values", "ids"), null, 1024)) {
            while (batches.loadNextBatch()) {
                BigIntVector values =
                        (BigIntVector) batches.getVectorSchemaRoot().getVector("values");
                UInt8Vector ids = (UInt8Vector) batches.getVectorSchemaRoot().getVector("ids");
                for (int i = 0; i < values.getValueCount(); i++) {
                    indexed.put(values.get(i), ids.get(i));
                    order.add(values.get(i));
                }
            }
        }
        assertThat(indexed).isEqualTo(offsetByKey);
        assertThat(order).isSorted();
        try (Dataset ds = Dataset.open(root, sstableUri(written), new ReadOptions.Builder().build())) {
            assertThat(ds.version()).as("the SSTable is left as written").isEqualTo(1);
            assertThat(ds.getIndexes()).isEmpty();
        }
        assertThat(dir.resolve("table")
                        .resolve("_mem_wal/" + shard + "/" + written.path() + "/_pk_index/page_lookup.lance"))
                .isRegularFile();
    }

    @Test
    void ssTableIsOneFragmentWithTheTombstoneAndTheTableFieldIds() {
        WrittenSsTable written;
        try (Memtable frozen = new Memtables(storage, root).frozen(3, 2, updatesAndADelete(), 2)) {
            written = new SsTableWriter(
                            new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root)
                    .write(frozen);
        }
        try (Dataset ds = Dataset.open(root, sstableUri(written), new ReadOptions.Builder().build())) {
            assertThat(ds.getFragments()).hasSize(1);
            assertThat(ds.getSchema().getFields().stream().map(Field::getName))
                    .containsExactly("id", "name", "score", "_tombstone");
            assertThat(ds.getSchema().findField("id").getMetadata())
                    .containsEntry("lance-schema:unenforced-primary-key", "true");
            for (LanceField f : ds.getLanceSchema().fields()) {
                if (table.fieldIds().containsKey(f.getName())) {
                    assertThat(f.getId()).as("field id of %s", f.getName()).isEqualTo(table.fieldId(f.getName()));
                }
            }
        }
    }

    @Test
    void appendOnlyTableKeepsEveryRow() {
        WalStorageSchema appendOnly =
                WalStorageSchema.derive(TABLE, List.of(), table.fieldIds(), WalSchemaProfile.SPEC);
        List<RowOp> ops = List.of(
                RowOp.put(row("id", 5L, "name", "x", "score", 1)),
                RowOp.put(row("id", 5L, "name", "x", "score", 1)),
                RowOp.put(row("id", 1L, "name", "y", "score", 2)));
        WrittenSsTable written;
        try (Memtable frozen = new Memtables(appendOnly, root).frozen(1, 2, ops, 3)) {
            written = new SsTableWriter(
                            new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()),
                            shard,
                            appendOnly,
                            root)
                    .write(frozen);
        }
        assertThat(written.physicalRows()).isEqualTo(3);
        assertThat(LanceRows.scan(root, sstableUri(written), Map.of()))
                .containsExactly(
                        row("id", 5L, "name", "x", "score", 1, "_tombstone", false),
                        row("id", 5L, "name", "x", "score", 1, "_tombstone", false),
                        row("id", 1L, "name", "y", "score", 2, "_tombstone", false));
    }

    @Test
    void lanceJava70ProfileWritesTheTableSchemaWithoutTombstones() {
        WalStorageSchema lance70 = WalStorageSchema.of(table, WalSchemaProfile.LANCE_JAVA_7_0);
        List<RowOp> ops = List.of(
                RowOp.put(row("id", 1L, "name", "a", "score", 1)), RowOp.put(row("id", 1L, "name", "b", "score", 2)));
        WrittenSsTable written;
        try (Memtable frozen = new Memtables(lance70, root).frozen(1, 8, ops, 1)) {
            written = new SsTableWriter(
                            new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, lance70, root)
                    .write(frozen);
        }
        assertThat(LanceRows.scan(root, sstableUri(written), Map.of()))
                .containsExactly(row("id", 1L, "name", "b", "score", 2));
    }

    /**
     * A small SSTable goes to lance-core as one Arrow array, which needs no call back into the JVM.
     * A stream would have lance-core's native threads attach to the JVM for every batch (and detach
     * again, which in JDK 17 walks every inflated monitor); each attach starts a Java thread, so
     * the JVM's count of started threads tells them apart. The same rows through lance-core's own
     * stream write show that the count sees those attaches.
     */
    @Test
    void smallSsTablesAreHandedToLanceWithoutCallsIntoTheJvm() throws Exception {
        int count = 20;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        SsTableWriter writer = new SsTableWriter(
                new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root);
        try (Memtable frozen = new Memtables(storage, root).frozen(1, 2, updatesAndADelete(), 1)) {
            assertThat(frozen.sealedBatches())
                    .as("the survivors of several batches")
                    .hasSizeGreaterThan(2);
            writer.write(frozen); // lance-core's pools start their threads once
            long before = threads.getTotalStartedThreadCount();
            for (int i = 0; i < count; i++) {
                writer.write(frozen);
            }
            long ours = threads.getTotalStartedThreadCount() - before;

            before = threads.getTotalStartedThreadCount();
            for (int i = 0; i < count; i++) {
                try (NewestRowsReader rows = new NewestRowsReader(root, frozen, storage.schema());
                        Dataset ds = Dataset.write()
                                .allocator(root)
                                .reader(rows)
                                .uri(dir.resolve("streamed-" + i).toString())
                                .execute()) {
                    assertThat(ds.countRows())
                            .as("the newest row of each of 4 keys")
                            .isEqualTo(4);
                }
            }
            long streamed = threads.getTotalStartedThreadCount() - before;
            assertThat(streamed).as("attaches of lance-core's stream write").isGreaterThanOrEqualTo(count);
            assertThat(ours).as("attaches of %d SSTable writes", count).isLessThan(count / 4);
        }
    }

    @Test
    void refusesAMemtableThatIsNotFrozenOrEmpty() {
        SsTableWriter writer = new SsTableWriter(
                new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root);
        try (Memtable open = new Memtables(storage, root).build(1, 4, updatesAndADelete());
                Memtable empty = new Memtables(storage, root).build(2, 4, List.of())) {
            assertThatThrownBy(() -> writer.write(open))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("frozen");
            empty.freeze();
            assertThatThrownBy(() -> writer.write(empty))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty");
        }
        assertThat(dir.resolve("table/_mem_wal")).doesNotExist();
    }

    @Test
    void failureNamesTheSsTableFolder() throws Exception {
        // A plain file where the shard folder should be: lance-core cannot create the dataset.
        Files.createDirectories(dir.resolve("table/_mem_wal"));
        Files.writeString(dir.resolve("table/_mem_wal/" + shard), "not a folder");
        try (Memtable frozen = new Memtables(storage, root).frozen(4, 4, updatesAndADelete(), 9)) {
            SsTableWriter writer = new SsTableWriter(
                    new TableLocation(new LocalObjectStore(Path.of(uri)), uri, Map.of()), shard, storage, root);
            assertThatThrownBy(() -> writer.write(frozen))
                    .isInstanceOfSatisfying(SsTableWriteException.class, e -> assertThat(e.location())
                            .startsWith(uri + "/_mem_wal/" + shard + "/")
                            .matches(".*/[0-9a-f]{8}_gen_4"))
                    .hasMessageContaining("_gen_4");
        }
    }

    private String sstableUri(WrittenSsTable t) {
        return TableLocation.ssTableUri(uri, shard, t.path());
    }
}
