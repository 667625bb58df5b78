package io.walsink.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.WalSink;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.testing.LanceDb;
import io.walsink.testing.LanceDb.Query;
import io.walsink.testing.LanceDb.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * LanceDB reads a table while a job writes it, with compaction running inside the job: SSTables
 * are published, merged and dropped between and during its reads (at least one read finds merged
 * rows in the base table). Each LanceDB read must lie
 * between two committed reads of walsink's reader taken just before and just after it: no key
 * missing that the earlier one had, none newer than the later one has (row {@code i} writes key
 * {@code i % KEYS} with value {@code i}, so values grow per key).
 */
class LanceDbReadsTableMidRunTest {
    private static final int KEYS = 500;
    private static final int READS = 4;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyLanceDbReadDuringTheRunLiesBetweenTheCommittedReadsAroundIt() throws Exception {
        String table = dir.resolve("live").toString();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(
                i -> Row.of(i % KEYS, Long.toString(i)),
                Long.MAX_VALUE,
                RateLimiterStrategy.perSecond(2_000),
                Types.ROW_NAMED(new String[] {"id", "seq"}, Types.LONG, Types.STRING));
        RowType type = RowType.of(
                new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "seq"});
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rows")
                .setParallelism(1) // one generator keeps each key's order
                .sinkTo(WalSink.forRows(type)
                        .path(table)
                        .primaryKey("id")
                        .createTableIfMissing(4)
                        .memtableMaxAge(Duration.ZERO) // every checkpoint publishes
                        .compaction(true)
                        .maintenanceInterval(Duration.ofMillis(500))
                        .build())
                .uid("live");
        JobClient job = env.executeAsync("LanceDB reads mid-run");
        try (TableReader walsink = TableReader.open(table)) {
            int reads = 0;
            int readsOverMergedRows = 0;
            while (reads < READS || readsOverMergedRows == 0) {
                Map<Long, Long> before = committed(walsink);
                if (before.isEmpty()) {
                    continue; // nothing published yet: poll again
                }
                Map<String, Result> results = LanceDb.read(
                        Path.of(table),
                        List.of(
                                Query.of("all", null, List.of("id", "seq")),
                                new Query("base", null, List.of("id"), false)));
                Result read = results.get("all");
                Map<Long, Long> after = committed(walsink);
                assertThat(read.error()).as("LanceDB's read during the run").isNull();
                Map<Long, Long> lanceDb = new TreeMap<>();
                read.rows().forEach(r -> assertThat(lanceDb.put(Long.parseLong(r.get(0)), Long.parseLong(r.get(1))))
                        .as("key %s returned twice", r.get(0))
                        .isNull());
                assertThat(lanceDb.keySet()).containsAll(before.keySet());
                assertThat(after.keySet()).containsAll(lanceDb.keySet());
                lanceDb.forEach((key, seq) -> {
                    assertThat(seq)
                            .as("key %s: LanceDB against the earlier committed read", key)
                            .isGreaterThanOrEqualTo(before.getOrDefault(key, -1L));
                    assertThat(seq)
                            .as("key %s: LanceDB against the later committed read", key)
                            .isLessThanOrEqualTo(after.get(key));
                });
                assertThat(job.getJobStatus().get()).as("the job still runs").isEqualTo(JobStatus.RUNNING);
                reads++;
                if (!results.get("base").rows().isEmpty()) {
                    readsOverMergedRows++; // compaction had merged rows into the base table
                }
            }
        } finally {
            job.cancel().get();
        }
    }

    private static Map<Long, Long> committed(TableReader reader) {
        Map<Long, Long> rows = new TreeMap<>();
        reader.read(ReadMode.COMMITTED)
                .rows()
                .forEach(r -> rows.put((Long) r.get("id"), Long.parseLong((String) r.get("seq"))));
        return rows;
    }
}
