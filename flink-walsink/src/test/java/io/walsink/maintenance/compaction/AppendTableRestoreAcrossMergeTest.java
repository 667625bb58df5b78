package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.recovery.ShardRestore;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardOpener;
import io.walsink.shard.ShardWriter;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.SyncShardDriver;
import io.walsink.shard.TableContext;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AppendEvents;
import io.walsink.testing.LanceOracle;
import io.walsink.testing.LanceRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A round-robin append table restored behind a merge: the compactor merged rows one shard wrote
 * after the checkpoint, and the restore takes exactly those rows back out of the base table (found
 * by the bucket part of walsink's row key), keeps the other shard's and loses nothing of its own.
 */
class AppendTableRestoreAcrossMergeTest {

    @TempDir
    Path dir;

    @Test
    void aRestoreBehindAMergeTakesTheShardsLaterRowsOutOfEveryReader() throws Exception {
        Path tablePath = dir.resolve("events");
        String uri = tablePath.toString();
        TableInfo table = AppendEvents.create(uri, 2);
        assertThat(AppendRowKey.of(table)).isTrue();
        LocalObjectStore store = new LocalObjectStore(tablePath);
        TableLocation location = new TableLocation(store, uri, Map.of());
        Map<Long, Long> expected = new TreeMap<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            TableContext ctx = new TableContext(
                    location,
                    table,
                    WalSchemaProfile.SPEC,
                    ShardWriterConfig.builder().keepMergedFor(Duration.ZERO).build(),
                    allocator);
            ShardWriter first = ShardOpener.open(ctx, ShardIds.bucket(0), 0, ShardPlacement.none());
            ShardWriter second = ShardOpener.open(ctx, ShardIds.bucket(1), 1, ShardPlacement.none());
            append(first, 0, 50, allocator, expected);
            append(first, 0, 1, allocator, expected); // an identical row again: appended, not deduplicated
            append(second, 100, 150, allocator, expected);
            CompactionFixture.publishGeneration(List.of(first, second));
            ShardDescriptor checkpoint = first.snapshot();
            append(first, 50, 100, allocator, new TreeMap<>()); // after the checkpoint: rolled back
            CompactionFixture.publishGeneration(List.of(first));
            first.close();
            second.close();

            TableCompaction compactor = new TableCompaction(location, allocator, CompactorOptions.defaults());
            compactor.run();
            assertThat(counts(LanceRows.scan(allocator, uri, Map.of())))
                    .as("the rows after the checkpoint were merged")
                    .containsKeys(50L, 99L);

            ShardWriter restored = ShardRestore.restore(ctx, checkpoint, ShardPlacement.none());
            SyncShardDriver.flushAndPublishAll(restored);
            restored.close();
            try (TableReader reader = TableReader.open(uri)) {
                assertThat(counts(reader.read(ReadMode.COMMITTED).rows()))
                        .as("walsink's reader")
                        .isEqualTo(expected);
            }
            new TableCompaction(location, allocator, CompactorOptions.defaults()).run();
            assertThat(counts(LanceRows.scan(allocator, uri, Map.of())))
                    .as("the base table after a merge")
                    .isEqualTo(expected);
            assertThat(counts(LanceOracle.scanPublished(
                            allocator,
                            uri,
                            Map.of(),
                            store,
                            List.of(ShardIds.bucket(0), ShardIds.bucket(1)),
                            List.of("id", "name"))))
                    .as("lance-core's LSM scanner")
                    .isEqualTo(expected);
        }
        assertThat(AppendEvents.lanceDb(tablePath))
                .as("LanceDB's default read and countRows()")
                .isEqualTo(expected);
    }

    /** Rows {@code [from, to)}, counted into {@code expected}. */
    private static void append(
            ShardWriter writer, long from, long to, BufferAllocator allocator, Map<Long, Long> expected) {
        AppendEvents.put(writer, from, to, allocator);
        for (long id = from; id < to; id++) {
            expected.merge(id, 1L, Long::sum);
        }
    }

    private static Map<Long, Long> counts(Collection<Map<String, Object>> rows) {
        return AppendEvents.of(rows);
    }
}
