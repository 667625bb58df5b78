package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableInfo;
import io.walsink.format.table.TableLocation;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceOracle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append table's generated row keys across a crash: rows only in the WAL, over several small
 * generations, come back from the replay with the keys they were written with, and the rows
 * written after the reopen, in generations given out again, get keys of their own. lance-core's
 * LSM scanner, which merges by key, then reads every row once.
 */
class AppendRowKeyReplayTest {
    private static final Schema USER = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    private static final int BUCKET = 1;

    @TempDir
    Path dir;

    @Test
    void replayedRowsKeepTheirKeysAndNewRowsGetOthers() {
        String uri = dir.resolve("events").toString();
        TableInfo table = LanceTables.create(
                uri,
                AppendRowKey.declare(AppendShards.declare(USER, 2)),
                List.of(AppendRowKey.COLUMN),
                TableSharding.unsharded(),
                Map.of());
        LocalObjectStore store = new LocalObjectStore(dir.resolve("events"));
        try (BufferAllocator allocator = new RootAllocator()) {
            TableContext ctx = new TableContext(
                    new TableLocation(store, uri, Map.of()),
                    table,
                    WalSchemaProfile.SPEC,
                    ShardWriterConfig.builder().memtableMaxRows(4).build(),
                    allocator);
            ShardWriter writer = ShardOpener.open(ctx, ShardIds.bucket(BUCKET), BUCKET, ShardPlacement.none());
            put(writer, 0, 10, allocator); // generations 1 to 3, in the WAL only
            SyncShardDriver.appendAllPending(writer);
            writer.close(); // a crash: nothing written but the WAL

            ShardWriter reopened = ShardOpener.open(ctx, ShardIds.bucket(BUCKET), BUCKET, ShardPlacement.none());
            assertThat(reopened.stats().replayedRows)
                    .as("the WAL's rows came back")
                    .isEqualTo(10);
            put(reopened, 10, 20, allocator);
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

    private static void put(ShardWriter writer, long from, long to, BufferAllocator allocator) {
        try (VectorSchemaRoot rows = VectorSchemaRoot.create(USER, allocator)) {
            for (long id = from; id < to; id++) {
                int row = (int) (id - from);
                ((BigIntVector) rows.getVector("id")).setSafe(row, id);
                ((VarCharVector) rows.getVector("name")).setSafe(row, ("e" + id).getBytes(StandardCharsets.UTF_8));
            }
            rows.setRowCount((int) (to - from));
            writer.put(rows);
        }
    }
}
