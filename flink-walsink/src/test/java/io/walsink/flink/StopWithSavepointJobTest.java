package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a real task: {@code flink stop} (stop-with-savepoint, no drain) of a job at the
 * {@code sink.memtable.max-age} of 1 min (the default, 0, publishes everything at every
 * checkpoint anyway), with rows far below any memtable size. After the stop the
 * published table holds every row the sink wrote: nothing waits for a checkpoint that never comes.
 */
class StopWithSavepointJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    @Test
    void aStoppedJobPublishedEveryRowItsSavepointCovers() throws Exception {
        Path table = dir.resolve("table");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(TimeUnit.MINUTES.toMillis(10)); // only the savepoint covers the rows
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, Long.MAX_VALUE, RateLimiterStrategy.perSecond(200), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows")
                .setParallelism(1)
                .map(StopWithSavepointJobTest::row)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .primaryKey("id")
                        .createTableIfMissing(4)
                        .flushInterval(Duration.ofMillis(50))
                        .memtableMaxAge(Duration.ofMinutes(1)) // young memtables wait for a later checkpoint
                        .build());
        JobClient job = env.executeAsync("walsink stop with savepoint");
        awaitDurableRows(table, 100);
        job.stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);

        Map<Long, String> latest = read(table, ReadMode.LATEST);
        Map<Long, String> committed = read(table, ReadMode.COMMITTED);
        assertThat(latest).as("rows the sink wrote").hasSizeGreaterThanOrEqualTo(100);
        assertThat(committed.size())
                .as("COMMITTED rows after the stop (LATEST %d)", latest.size())
                .isEqualTo(latest.size());
        assertThat(committed).isEqualTo(latest);
    }

    private static void awaitDurableRows(Path table, int rows) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (read(table, ReadMode.LATEST).size() < rows) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + rows + " rows in the WAL after 60 s");
            }
            Thread.sleep(50); // polling the table, not ordering threads
        }
    }

    private static RowData row(long id) {
        return GenericRowData.of(id, StringData.fromString("v" + id));
    }
}
