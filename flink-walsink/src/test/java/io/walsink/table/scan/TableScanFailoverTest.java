package io.walsink.table.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.BucketShardWriters;
import io.walsink.testing.MemWalTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded scan on a MiniCluster fails over mid-scan, restores its splits from a checkpoint taken
 * after some rows, and meanwhile the table changed in every bucket's shard: the job's output is
 * exactly the snapshot pinned at its start.
 *
 * <p>The interleaving comes from synchronisation, not timing: the real scan source is wrapped in
 * a {@link HoldingSource}, whose reader after {@code holdAt} rows holds until a checkpoint taken
 * while it holds has completed; it then changes the table and fails once.
 */
class TableScanFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int KEYS = 4000;
    private static volatile String changing;

    @TempDir
    Path dir;

    @Test
    void aScanRestoredMidwayWhileTheTableChangedEmitsThePinnedSnapshotExactly() throws Exception {
        long seed = System.nanoTime();
        System.out.println("TableScanFailoverTest seed " + seed);
        int holdAt = 1 + new Random(seed).nextInt(KEYS - 1);
        String uri = dir.resolve("t").toString();
        LanceTables.create(uri, TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        try (RootAllocator allocator = new RootAllocator()) {
            new MemWalTable(uri, Map.of(), new LocalObjectStore(Path.of(uri)), WalSchemaProfile.SPEC, allocator)
                    .writeBase(LongStream.rangeClosed(1, KEYS)
                            .mapToObj(i -> TableScanRestoreTest.put(i, "base-" + i))
                            .toList());
        }
        List<String> atPin = TableScanRestoreTest.baseRows(1, KEYS);
        changing = uri;
        HoldingSource.reset(TableScanFailoverTest::changeTheTable);

        StreamExecutionEnvironment env = HoldingSource.environment();
        env.setParallelism(1);
        WalTableScanSource scan = new WalTableScanSource(TableScanRestoreTest.scan(uri, ReadMode.COMMITTED));
        List<String> emitted = new ArrayList<>();
        try (CloseableIterator<String> rows = env.fromSource(
                        new HoldingSource<>(scan, holdAt),
                        WatermarkStrategy.noWatermarks(),
                        "scan",
                        InternalTypeInfo.ofFields(new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)))
                .map(row -> row.getLong(0) + "=" + row.getString(1))
                .executeAndCollect()) {
            rows.forEachRemaining(emitted::add);
        }

        assertThat(HoldingSource.FAILED)
                .as("the scan failed once, seed %s", seed)
                .isTrue();
        assertThat(HoldingSource.EMITTED_BEFORE_FAILURE.get())
                .as("rows before the failure")
                .isEqualTo(holdAt);
        assertThat(emitted).as("holding at %s, seed %s", holdAt, seed).containsExactlyInAnyOrderElementsOf(atPin);
        assertThat(HoldingSource.EMITTED_AFTER_FAILURE.get())
                .as("the restored attempt resumed from the checkpoint, not from the start")
                .isEqualTo(KEYS - holdAt);
    }

    /** Every key deleted and others written, in every bucket's shard, published. */
    private static void changeTheTable() {
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(changing, allocator)) {
            for (long id = 1; id <= KEYS; id += 2) {
                writers.write(id, "gone", true);
                writers.write(id + KEYS, "new", false);
            }
            writers.publish();
        }
    }
}
