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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded visibility: at a low row rate (50 rows/s into 4 buckets, far below any memtable size)
 * with 1 s checkpoints and {@code sink.memtable.max-age} 0, a concurrent reader of published data
 * sees every row within about one checkpoint interval plus the time to write its SSTable. Before
 * the max age, rows stayed invisible until a memtable filled (a million rows per shard by default)
 * or the job ended.
 */
class CommittedVisibilityTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final long ROWS = 750; // 15 s at 50 rows/s
    private static final long CHECKPOINT_MILLIS = 1_000;
    /** The stated bound is one checkpoint interval plus an SSTable write; the rest is slack for a loaded machine. */
    private static final long BOUND_MILLIS = CHECKPOINT_MILLIS + 3_000;

    /** When each row left the source; the MiniCluster runs in this JVM. */
    private static final Map<Long, Long> EMITTED_AT = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @Test
    void aCheckpointMakesItsRowsVisibleToCommittedReaders() throws Exception {
        EMITTED_AT.clear();
        Path table = dir.resolve("table");
        Map<Long, Long> firstSeen = new ConcurrentHashMap<>();
        AtomicInteger polls = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        Thread reader = new Thread(
                () -> {
                    while (!done.get()) {
                        try {
                            long now = System.currentTimeMillis();
                            for (long id : HarnessSupport.read(table, ReadMode.COMMITTED)
                                    .keySet()) {
                                firstSeen.putIfAbsent(id, now);
                            }
                            polls.incrementAndGet();
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
                new DataGeneratorSource<>(i -> i, ROWS, RateLimiterStrategy.perSecond(50), Types.LONG);
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
        reader.start();
        try {
            env.execute("walsink committed visibility");
        } finally {
            done.set(true);
            reader.join();
        }

        assertThat(polls.get()).as("reads of the published table").isGreaterThanOrEqualTo(20);
        assertThat(EMITTED_AT).hasSize((int) ROWS);
        List<Long> lags = new ArrayList<>();
        for (Map.Entry<Long, Long> e : EMITTED_AT.entrySet()) {
            Long seen = firstSeen.get(e.getKey());
            if (seen != null) { // rows of the last checkpoint may be published after the last read
                lags.add(seen - e.getValue());
            }
        }
        lags.sort(null);
        System.out.printf(
                "committed visibility over %d rows seen while running: p50 %d ms, p99 %d ms, max %d ms%n",
                lags.size(), lags.get(lags.size() / 2), lags.get(lags.size() * 99 / 100), lags.get(lags.size() - 1));
        assertThat(lags.size()).as("rows seen while the job ran").isGreaterThanOrEqualTo((int) (ROWS * 8 / 10));
        assertThat(lags.get(lags.size() - 1))
                .as("slowest row's visibility (ms)")
                .isLessThanOrEqualTo(BOUND_MILLIS);
        assertThat(HarnessSupport.read(table, ReadMode.COMMITTED)).hasSize((int) ROWS);
    }

    private static RowData emit(long id) {
        EMITTED_AT.put(id, System.currentTimeMillis());
        return GenericRowData.of(id, StringData.fromString("v" + id));
    }
}
