package io.walsink.table.scan;

import static io.walsink.table.scan.TableScanRestoreTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.TableLayout;
import io.walsink.format.manifest.GarbageCollectedException;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.io.WrittenSsTable;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AllocatorExtension;
import io.walsink.testing.MemWalTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * A restored split whose pinned snapshot lost an object to garbage collection fails, naming the
 * table, the pinned version and the retention setting, instead of reading the table as it is now.
 * The base version is removed by lance-core's cleanup; the other objects are deleted from the
 * store by the test, as the collector would delete them (it is not run: its retention would
 * have to pass first).
 */
class TableScanExpiredSnapshotTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private String uri;
    private MemWalTable table;
    private MemWalTable.Shard shard;
    private WrittenSsTable sstable;
    private ShardManifest pinnedManifest;

    /** Base keys 1..6, one published SSTable with key 7, a WAL entry with key 8 after it. */
    private void createTable() {
        uri = dir.resolve("t").toString();
        LanceTables.create(uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 1), Map.of());
        table = new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator);
        table.writeBase(
                LongStream.rangeClosed(1, 6).mapToObj(i -> put(i, "base")).toList());
        shard = table.shard();
        sstable = shard.flush(List.of(put(7, "sstable")), 4);
        pinnedManifest = shard.publish();
        shard.walEntry(List.of(put(8, "wal")));
    }

    /**
     * Pins, emits two rows, checkpoints, lets {@code collect} remove objects, and restores: the
     * restored reader's failure.
     */
    private GarbageCollectedException restoreAfter(ReadMode mode, Runnable collect) throws Exception {
        ScanHarness harness = new ScanHarness(TableScanRestoreTest.scan(uri, mode));
        List<TableScanSplit> checkpoint;
        try (SourceReader<RowData, TableScanSplit> first = harness.reader(harness.allSplits())) {
            assertThat(ScanHarness.poll(first, 2)).hasSize(2);
            checkpoint = harness.checkpoint(first, 1);
        }
        collect.run();
        try (SourceReader<RowData, TableScanSplit> restored = harness.reader(checkpoint)) {
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> ScanHarness.poll(restored, -1));
            assertThat(thrown).isInstanceOf(GarbageCollectedException.class);
            GarbageCollectedException e = (GarbageCollectedException) thrown;
            assertThat(e.getMessage()).contains(uri).contains("sink.gc.retention");
            return e;
        }
    }

    private static void delete(Path path) {
        try (Stream<Path> files = Files.walk(path)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aCleanedUpBaseVersion() throws Exception {
        createTable();
        long pinned;
        try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
            pinned = base.version();
        }
        GarbageCollectedException e = restoreAfter(ReadMode.COMMITTED, () -> {
            table.writeBase(List.of(put(9, "later")));
            try (Dataset base = LanceTables.openDataset(allocator, uri, Map.of())) {
                base.cleanupWithPolicy(CleanupPolicy.builder()
                        .withBeforeVersion(base.version())
                        .build());
            }
        });
        assertThat(e.getMessage()).contains("base table version " + pinned);
    }

    @Test
    void aCollectedManifestVersion() throws Exception {
        createTable();
        GarbageCollectedException e = restoreAfter(ReadMode.COMMITTED, () -> {
            shard.flush(List.of(put(1, "later")), 4);
            shard.publish();
            delete(Path.of(uri).resolve(TableLayout.manifestKey(shard.id(), pinnedManifest.version())));
        });
        assertThat(e.getMessage()).contains("manifest version " + pinnedManifest.version() + " of shard " + shard.id());
    }

    @Test
    void aCollectedSsTable() throws Exception {
        createTable();
        GarbageCollectedException e = restoreAfter(
                ReadMode.COMMITTED, () -> delete(Path.of(TableLocation.ssTableUri(uri, shard.id(), sstable.path()))));
        assertThat(e.getMessage())
                .contains("SSTable generation " + sstable.generation())
                .contains("manifest version " + pinnedManifest.version());
    }

    @Test
    void aCollectedWalEntryOfTheTail() throws Exception {
        createTable();
        long position = pinnedManifest.walEntryPositionLastSeen() + 1; // the entry written after the publish
        String key = TableLayout.walEntryKey(shard.id(), position);
        GarbageCollectedException e =
                restoreAfter(ReadMode.LATEST, () -> delete(Path.of(uri).resolve(key)));
        assertThat(e.getMessage()).contains("WAL entry " + key).contains("WAL through " + position);
    }
}
