package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.TableNotFoundException;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded visibility: at a low row rate (50 rows/s into 4 buckets, far below any memtable size)
 * with 1 s checkpoints and {@code sink.memtable.max-age} 0, checkpoints publish rows while the job
 * runs, not only at its end. The source never ends: the job is cancelled only once a concurrent
 * reader of published data has seen each of the first {@value #SEEN} rows, with its value. A sink
 * that published only when a memtable filled (a million rows per shard by default) or at the end
 * of input would keep them invisible and the test would time out. How long the rows took is
 * printed, not bounded: on a loaded machine the reads themselves slow down; the bound is measured
 * by {@code PipelineLatencyReport} (generated to src, p99 against twice the checkpoint interval).
 */
class CommittedVisibilityTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    /** Rows the reader must see published while the job runs. */
    private static final int SEEN = 100;

    private static final long CHECKPOINT_MILLIS = 1_000;

    /** When each row left the source; the MiniCluster runs in this JVM. */
    private static final Map<Long, Long> EMITTED_AT = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // only a sink that never publishes while running gets here
    void checkpointsMakeRowsVisibleToCommittedReadersWhileTheJobRuns() throws Exception {
        EMITTED_AT.clear();
        Path table = dir.resolve("table");
        Map<Long, Long> firstSeen = new ConcurrentHashMap<>();
        AtomicReference<String> wrongValue = new AtomicReference<>();
        CountDownLatch allSeen = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        Thread reader = new Thread(
                () -> {
                    while (!done.get()) {
                        try {
                            long now = System.currentTimeMillis();
                            for (Map.Entry<Long, String> row : HarnessSupport.read(table, ReadMode.COMMITTED)
                                    .entrySet()) {
                                if (!row.getValue().equals("v" + row.getKey())) {
                                    wrongValue.compareAndSet(null, row.toString());
                                }
                                firstSeen.putIfAbsent(row.getKey(), now);
                            }
                            if (firstSeen.keySet().containsAll(firstRows())) {
                                allSeen.countDown();
                            }
                        } catch (TableNotFoundException notYet) {
                            // the sink creates the table when the job is built; nothing to read before
                        }
                    }
                },
                "committed reader");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(CHECKPOINT_MILLIS);
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, Long.MAX_VALUE, RateLimiterStrategy.perSecond(50), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows")
                .setParallelism(1)
                .map(CommittedVisibilityTest::emit)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .primaryKey("id")
                        .createTableIfMissing(4)
                        .memtableMaxAge(Duration.ZERO)
                        .build());
        JobClient job = env.executeAsync("walsink committed visibility");
        reader.start();
        try {
            allSeen.await(); // the job cannot end on its own: only publication while it runs gets past here
            assertThat(job.getJobStatus().get().isGloballyTerminalState())
                    .as("the job, when the reader had seen the first rows")
                    .isFalse();
        } finally {
            done.set(true);
            reader.join();
            job.cancel().get();
        }

        assertThat(wrongValue.get()).as("a published row with another value").isNull();
        List<Long> lags = new ArrayList<>();
        for (long id : firstRows()) {
            lags.add(firstSeen.get(id) - EMITTED_AT.get(id));
        }
        lags.sort(null);
        System.out.printf(
                "committed visibility of the first %d rows: p50 %d ms, p99 %d ms, max %d ms%n",
                lags.size(), lags.get(lags.size() / 2), lags.get(lags.size() * 99 / 100), lags.get(lags.size() - 1));
        // what a reader saw was published for good: the table still holds it after the job
        assertThat(HarnessSupport.read(table, ReadMode.COMMITTED))
                .containsKeys(firstRows().toArray(Long[]::new));
    }

    private static List<Long> firstRows() {
        List<Long> ids = new ArrayList<>();
        for (long id = 0; id < SEEN; id++) {
            ids.add(id);
        }
        return ids;
    }

    private static RowData emit(long id) {
        EMITTED_AT.put(id, System.currentTimeMillis());
        return GenericRowData.of(id, StringData.fromString("v" + id));
    }
}
