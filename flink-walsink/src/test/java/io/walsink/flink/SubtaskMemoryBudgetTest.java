package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static io.walsink.testing.Folders.ssTableFolders;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sink.max-unflushed-bytes-per-subtask} bounds what all shards of a subtask hold together,
 * even while each shard stays far below its own budget: the writer freezes and flushes its
 * largest shards. The test runs no mail itself, so SSTables are written only in the writer's waits.
 */
class SubtaskMemoryBudgetTest {
    private static final String ROW_20K = "z".repeat(20 * 1024);

    @TempDir
    Path dir;

    @Test
    void theSubtaskBudgetFreezesAndFlushesTheLargestShards() throws Exception {
        // Four buckets of 64 rows of 20 KiB (1.3 MB each; memtable sizes are looked at every 256 rows):
        // every shard is under its 64 MiB budget,
        // the four together are over the subtask's 1 MiB.
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(1_000_000)
                .memtableMaxBytes(1 << 20)
                .walMaxBufferBytes(1 << 20)
                .maxUnflushedBytes(64 << 20)
                .maxUnflushedBytesPerSubtask(1 << 20)
                .maxOffHeapBytesPerSubtask(64 << 20) // the staging batch alone holds up to 512 such rows
                .build();
        Map<Long, String> expected = new TreeMap<>();
        try (SinkHarness h = SinkHarness.of(sink, false)) {
            h.open();
            for (int row = 0; row < 64; row++) {
                for (long id = 0; id < 16; id++) { // 16 keys over 4 buckets
                    h.processElement(upsert(id, ROW_20K + row), 0);
                    expected.put(id, ROW_20K + row);
                }
            }
            // Each shard's 64th row looks at the budgets; the first look already finds the subtask
            // over and relieves shards, largest first, until all four together are under 1 MiB.
            assertThat(ssTableFolders(dir.resolve("table"))).isGreaterThanOrEqualTo(3);
        }
        assertThat(read(dir.resolve("table"), ReadMode.LATEST)).isEqualTo(expected);
    }
}
