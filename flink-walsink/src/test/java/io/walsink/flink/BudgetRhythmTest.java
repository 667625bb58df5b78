package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.upsert;
import static io.walsink.testing.Folders.ssTableFolders;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shard's memory budget is looked at, whatever the rhythm of the input. Rows alternate
 * between a bucket of large rows and one of small rows, so every 64th row of the subtask belongs
 * to the small one; the large one must still yield to its SSTable writes instead of piling up
 * frozen memtables. The test runs no mail itself: SSTable writes progress only in the writer's
 * own waits.
 */
class BudgetRhythmTest {
    private static final String LARGE = "y".repeat(40 * 1024);

    @TempDir
    Path dir;

    @Test
    void aShardsBudgetIsCheckedWhenItsRowsNeverFallOnTheSubtasksCheck() throws Exception {
        // 100 rows of 40 KiB: each large memtable (4 MB) is over the 2 MiB budget alone; the small
        // bucket's ten memtables together stay far below it.
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(100)
                .memtableMaxBytes(2 << 20)
                .walMaxBufferBytes(2 << 20)
                .maxUnflushedBytes(2 << 20)
                .build();
        long large = HarnessSupport.idInBucket(sink, 0);
        long small = HarnessSupport.idInBucket(sink, 1);
        try (SinkHarness h = SinkHarness.of(sink, false)) {
            h.open();
            for (int i = 0; i < 1_000; i++) {
                h.processElement(upsert(large, LARGE + i), 0);
                h.processElement(upsert(small, "s" + i), 0);
            }
            long written = ssTableFolders(dir.resolve("table"));
            System.out.println("SSTables started after 1000 + 1000 rows: " + written);
            // At each of its checks (every 64th of its rows) the large bucket waits until all of its
            // frozen memtables are SSTables: at least those frozen by its 960th row, nine.
            assertThat(written).isGreaterThanOrEqualTo(9);
        }
    }
}
