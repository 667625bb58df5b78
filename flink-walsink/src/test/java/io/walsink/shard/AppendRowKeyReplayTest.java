package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.AppendEvents;
import io.walsink.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append table's generated row keys across a crash: rows only in the WAL, over several small
 * generations, come back from the replay with the keys they were written with, and the rows
 * written after the reopen, in generations given out again, get keys of their own. lance-core's
 * LSM scanner, which merges by key, then reads every row once.
 */
class AppendRowKeyReplayTest {
    private static final int BUCKET = 1;

    @TempDir
    Path dir;

    @Test
    void replayedRowsKeepTheirKeysAndNewRowsGetOthers() {
        String uri = dir.resolve("events").toString();
        TableInfo table = AppendEvents.create(uri, 2);
        LocalObjectStore store = new LocalObjectStore(dir.resolve("events"));
        try (BufferAllocator allocator = new RootAllocator()) {
            TableContext ctx = new TableContext(
                    new TableLocation(store, uri, Map.of()),
                    table,
                    WalSchemaProfile.SPEC,
                    ShardWriterConfig.builder().memtableMaxRows(4).build(),
                    allocator);
            ShardWriter writer = ShardOpener.open(ctx, ShardIds.bucket(BUCKET), BUCKET, ShardPlacement.none());
            AppendEvents.put(writer, 0, 10, allocator); // generations 1 to 3, in the WAL only
            SyncShardDriver.appendAllPending(writer);
            writer.close(); // a crash: nothing written but the WAL

            ShardWriter reopened = ShardOpener.open(ctx, ShardIds.bucket(BUCKET), BUCKET, ShardPlacement.none());
            assertThat(reopened.stats().replayedRows)
                    .as("the WAL's rows came back")
                    .isEqualTo(10);
            AppendEvents.put(reopened, 10, 20, allocator);
            SyncShardDriver.flushAndPublishAll(reopened);
            reopened.close();

            List<Map<String, Object>> rows = LanceOracle.scanPublished(
                    allocator, uri, Map.of(), store, List.of(ShardIds.bucket(BUCKET)), List.of("id", "name"));
            assertThat(rows).hasSize(20);
            assertThat(new TreeSet<>(rows.stream().map(r -> (Long) r.get("id")).toList()))
                    .hasSize(20);
            List<Map<String, Object>> keys = LanceOracle.scanPublished(
                    allocator, uri, Map.of(), store, List.of(ShardIds.bucket(BUCKET)), List.of(AppendRowKey.COLUMN));
            assertThat(keys).hasSize(20);
            assertThat(keys).allMatch(r -> AppendRowKey.bucket((Long) r.get(AppendRowKey.COLUMN)) == BUCKET);
        }
    }
}
