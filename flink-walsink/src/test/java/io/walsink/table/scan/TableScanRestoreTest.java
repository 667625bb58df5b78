package io.walsink.table.scan;

import static io.walsink.testing.Memtables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.storage.S3Options;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import io.walsink.testing.RowOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan split restored from a checkpoint emits exactly the rows of the snapshot the scan pinned
 * that the first attempt had not emitted, however the table changed in between.
 */
public class TableScanRestoreTest {
    public static final Schema TABLE = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    static RowOp put(long id, String name) {
        return RowOp.put(row("id", id, "name", name));
    }

    static RowOp delete(long id) {
        return RowOp.delete(row("id", id));
    }

    private String uri;
    private MemWalTable table;
    private MemWalTable.Shard shard;

    /** A keyed table whose base holds keys 1..10 ("base-i"), with one shard that has nothing yet. */
    @BeforeEach
    void tenKeys() {
        uri = dir.resolve("t").toString();
        LanceTables.create(uri, TABLE, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        table = new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        table.writeBase(
                LongStream.rangeClosed(1, 10).mapToObj(i -> put(i, "base-" + i)).toList());
        shard = table.shard();
        shard.publish();
    }

    public static TableScan scan(String uri, ReadMode mode) {
        return new TableScan(
                uri, S3Options.defaults(), Map.of(), WalSchemaProfile.SPEC, mode, List.of("id", "name"), -1);
    }

    static List<String> rows(List<RowData> rows) {
        return rows.stream().map(r -> r.getLong(0) + "=" + r.getString(1)).toList();
    }

    static List<String> baseRows(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(i -> i + "=base-" + i).toList();
    }

    /**
     * Emits three rows, checkpoints, lets {@code change} modify the table, restores a new reader
     * from the checkpoint and reads to the end: the rows of both attempts.
     */
    private List<String> scanAcrossRestore(ReadMode mode, Runnable change) throws Exception {
        ScanHarness harness = new ScanHarness(scan(uri, mode));
        List<TableScanSplit> splits = harness.allSplits();
        List<String> emitted = new ArrayList<>();
        List<TableScanSplit> checkpoint;
        try (SourceReader<RowData, TableScanSplit> first = harness.reader(splits)) {
            emitted.addAll(rows(ScanHarness.poll(first, 3)));
            checkpoint = harness.checkpoint(first, 1);
        }
        assertThat(emitted).as("first attempt").hasSize(3);
        change.run();
        try (SourceReader<RowData, TableScanSplit> restored = harness.reader(checkpoint)) {
            emitted.addAll(rows(ScanHarness.poll(restored, -1)));
        }
        return emitted;
    }

    @Test
    void aKeyDeletedBeforeTheRestoreDoesNotHideALaterKey() throws Exception {
        List<String> emitted = scanAcrossRestore(ReadMode.COMMITTED, () -> publish(delete(1)));
        assertThat(emitted).containsExactlyElementsOf(baseRows(1, 10));
    }

    @Test
    void aKeyInsertedBeforeTheRestoreDoesNotRepeatALaterKey() throws Exception {
        // 0 sorts before every key the first attempt emitted, 11 after every key
        List<String> emitted = scanAcrossRestore(ReadMode.COMMITTED, () -> publish(put(0, "new"), put(11, "new")));
        assertThat(emitted).containsExactlyElementsOf(baseRows(1, 10));
    }

    @Test
    void anUpdateOfAKeyNotYetEmittedIsNotSeenByTheRestoredSplit() throws Exception {
        List<String> emitted = scanAcrossRestore(ReadMode.COMMITTED, () -> publish(put(7, "changed"), delete(8)));
        assertThat(emitted).containsExactlyElementsOf(baseRows(1, 10));
    }

    @Test
    void aNewBaseVersionIsNotSeenByTheRestoredSplit() throws Exception {
        List<String> emitted = scanAcrossRestore(ReadMode.COMMITTED, () -> table.writeBase(List.of(put(0, "new"))));
        assertThat(emitted).containsExactlyElementsOf(baseRows(1, 10));
    }

    /**
     * An append-only table keeps every row in read order (base fragments, SSTables by generation,
     * WAL by position), not by key: that order must be as fixed as key order is, including base
     * rows spread over several fragments and a base version appended after the pin.
     */
    @Test
    void anAppendOnlyTableRestoresExactlyInReadOrder() throws Exception {
        uri = dir.resolve("log").toString();
        LanceTables.create(uri, TABLE, List.of(), TableSharding.unsharded(), Map.of());
        table = new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        List<String> expected = new ArrayList<>();
        for (int fragment = 0; fragment < 3; fragment++) {
            List<RowOp> rows = new ArrayList<>();
            for (long i = 3; i >= 1; i--) { // against key order, and repeating keys across fragments
                rows.add(put(i, "base-" + fragment));
                expected.add(i + "=base-" + fragment);
            }
            table.writeBase(rows);
        }
        shard = table.shard();
        shard.flush(List.of(put(2, "sstable"), put(2, "sstable")), 4);
        shard.publish();
        expected.addAll(List.of("2=sstable", "2=sstable"));
        List<String> emitted = scanAcrossRestore(ReadMode.COMMITTED, () -> {
            table.writeBase(List.of(put(0, "later")));
            publish(put(0, "later"));
        });
        assertThat(emitted).containsExactlyElementsOf(expected);
    }

    /** One SSTable holding {@code ops}, published. */
    private void publish(RowOp... ops) {
        shard.flush(List.of(ops), 4);
        shard.publish();
    }

    @Test
    void inLatestModeTheWalTailIsBoundedAtThePin() throws Exception {
        shard.walEntry(List.of(put(4, "wal"))); // durable before the pin: part of the snapshot
        // base rows the snapshot's tail does not override, in storage order, then the tail's live rows
        List<String> expected = new ArrayList<>(baseRows(1, 10));
        expected.remove("4=base-4");
        expected.add("4=wal");
        List<String> emitted = scanAcrossRestore(ReadMode.LATEST, () -> {
            shard.walEntry(List.of(delete(1), put(0, "late"), put(6, "late"))); // after the pin
        });
        assertThat(emitted).containsExactlyElementsOf(expected);
    }
}
