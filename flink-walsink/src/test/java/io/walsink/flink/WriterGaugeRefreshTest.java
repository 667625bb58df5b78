package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's gauges are copied from the shards on a rhythm of their own, once a second of
 * processing time, and not at every bucket's tick or I/O completion: a subtask of 128 buckets
 * ticks 1,280 times a second at a 100 ms flush interval, and walking every shard at each tick
 * costs it most of its CPU (docs/benchmarks.md, "Many buckets per writer subtask").
 */
class WriterGaugeRefreshTest {
    /** ShardWriterMetrics' refresh interval. */
    private static final long REFRESH_MILLIS = 1_000;

    private static final int BUCKETS = 16;

    @TempDir
    Path dir;

    @Test
    void gaugesFollowTheirOwnIntervalNotTheBucketTicks() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(BUCKETS)
                .flushInterval(Duration.ofMillis(100))
                .build();
        CapturedWriterGauges gauges = new CapturedWriterGauges();
        try (SinkHarness h = SinkHarness.of(sink, gauges)) {
            h.setProcessingTime(0);
            h.open();
            for (long id = 0; id < 1_000; id++) { // every bucket gets rows
                h.processElement(upsert(id, "v" + id), 0);
            }
            for (long now = 100; now < REFRESH_MILLIS; now += 100) {
                h.setProcessingTime(now); // every bucket's tick fires
            }
            assertThat(gauges.value("shards"))
                    .as("no refresh before the interval, however many ticks ran")
                    .isEqualTo(0);

            h.setProcessingTime(REFRESH_MILLIS);
            assertThat(gauges.value("shards")).isEqualTo(BUCKETS);
        }
    }
}
