package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.ChangeGenerator;
import io.walsink.flink.FailoverTestSupport;
import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.read.ReadMode;
import io.walsink.table.scan.HoldingSource;
import io.walsink.table.scan.TableScanRestoreTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A walsink table written by one SQL job ({@code INSERT INTO src SELECT ... FROM changes}) and
 * read continuously by another ({@code SELECT id, name FROM src}, startup mode initial, COMMITTED)
 * while it is written, each job failing once at a seeded random row and restoring its latest
 * checkpoint. The writer's input is a pure function of the row number (upserts and deletes over
 * a small key space, every value "v" + its row number) whose position is in the checkpoints,
 * throttled to a number of rows per checkpoint and held after two checkpoints until the read has
 * emitted a change, so the reader reads while the writer writes.
 * The read's upsert changelog, collected exactly-once, must name each key's versions in
 * increasing order only (no change twice, none out of order), and applied to a map end equal to
 * the table the writer's input makes.
 */
class StreamingReadBothSidesFailoverTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final int KEYS = 200;
    private static final int ROWS = 2_400;
    private static final int ROWS_PER_CHECKPOINT = 120;
    private static final String COLUMNS = "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED";
    private static final Schema CHANGES = Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("name", DataTypes.STRING())
            .primaryKey("id")
            .build();
    private static final TypeInformation<Row> ROW =
            Types.ROW_NAMED(new String[] {"id", "name"}, Types.LONG, Types.STRING);

    /** The writer holds at this row until the read has emitted a change, so that both overlap. */
    private static final int HOLD_AT = 2 * ROWS_PER_CHECKPOINT;

    private static volatile CountDownLatch readerEmitted;

    /** The highest row number the writer's source generated, by any attempt. */
    private static final AtomicLong GENERATED = new AtomicLong(-1);

    private static final AtomicBoolean WRITER_FAILED = new AtomicBoolean();
    private static final AtomicLong WRITER_RESUMED_AT = new AtomicLong(-1);
    private static final AtomicLong READER_ROWS = new AtomicLong();
    private static final AtomicBoolean READER_FAILED = new AtomicBoolean();
    private static final AtomicLong GENERATED_WHEN_READER_FAILED = new AtomicLong(-1);
    private static final AtomicLong GENERATED_AT_FIRST_READER_CHECKPOINT = new AtomicLong(-1);

    @TempDir
    Path dir;

    /** Checkpoints every 200 ms, an immediate restart after a failure, parallelism 2. */
    private static StreamExecutionEnvironment environment() {
        StreamExecutionEnvironment env = HoldingSource.environment(Duration.ofMillis(200));
        env.setParallelism(2);
        return env;
    }

    /**
     * Row {@code i} of the writer's input: the generator's change {@code i}, a delete carrying its
     * version too. Throws once, at row {@code failAt}; records where the restored attempt resumed.
     */
    private record WriterInput(ChangeGenerator changes, long failAt) implements GeneratorFunction<Long, Row> {
        @Override
        public Row map(Long i) throws InterruptedException {
            if (i == HOLD_AT && !readerEmitted.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the read emitted nothing within two minutes");
            }
            if (WRITER_FAILED.get()) {
                WRITER_RESUMED_AT.compareAndSet(-1, i);
            } else if (i == failAt && WRITER_FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected writer failure at row " + i);
            }
            GENERATED.accumulateAndGet(i, Math::max);
            RowKind kind = changes.isDelete(i) ? RowKind.DELETE : RowKind.INSERT;
            return Row.ofKind(kind, changes.keyOf(i), "v" + i);
        }
    }

    /**
     * Describes each change the read emitted; throws once, at the first row from {@code failAt}
     * on that comes after a completed checkpoint covering rows this subtask saw, so the restore
     * starts from a position inside the read (a checkpoint before its first row would restore
     * the start, which a restore that loses its position also does).
     */
    private static final class ReaderFailsOnce extends RichMapFunction<Row, String>
            implements CheckpointedFunction, CheckpointListener {
        private final long failAt;
        private transient long rows;
        private transient Map<Long, Long> rowsAtSnapshot;
        private transient boolean checkpointed;

        ReaderFailsOnce(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public String map(Row row) {
            readerEmitted.countDown();
            rows++;
            if (READER_ROWS.incrementAndGet() >= failAt && checkpointed && READER_FAILED.compareAndSet(false, true)) {
                GENERATED_WHEN_READER_FAILED.set(GENERATED.get());
                throw new IllegalStateException("injected reader failure at row " + READER_ROWS.get());
            }
            return VersionedChangelog.describe(row);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
            rowsAtSnapshot = new HashMap<>();
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            rowsAtSnapshot.put(context.getCheckpointId(), rows);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (rowsAtSnapshot.getOrDefault(checkpointId, 0L) > 0) {
                GENERATED_AT_FIRST_READER_CHECKPOINT.compareAndSet(-1, GENERATED.get());
                checkpointed = true;
            }
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStreamingReadOfATableBeingWrittenSurvivesFailoversOnBothSides() throws Exception {
        long seed = FailoverTestSupport.seed("StreamingReadBothSidesFailoverTest", System.nanoTime());
        Random random = new Random(seed);
        ChangeGenerator writer = new ChangeGenerator(KEYS, 5, random.nextLong() | 1); // seed 0 is not random
        long writerFailAt = HOLD_AT + random.nextInt(ROWS - HOLD_AT); // while the read runs
        long readerFailAt = 1 + random.nextInt(ROWS / 3); // it reads more: the snapshot, then most rows
        readerEmitted = new CountDownLatch(1);
        GENERATED.set(-1);
        WRITER_FAILED.set(false);
        WRITER_RESUMED_AT.set(-1);
        READER_ROWS.set(0);
        READER_FAILED.set(false);
        GENERATED_WHEN_READER_FAILED.set(-1);
        GENERATED_AT_FIRST_READER_CHECKPOINT.set(-1);
        Path src = dir.resolve("src");
        LanceTables.create(
                src.toString(), TableScanRestoreTest.TABLE, List.of("id"), TableSharding.bucket("id", 4), Map.of());
        long started = System.nanoTime();

        StreamExecutionEnvironment writing = environment();
        StreamTableEnvironment writerSql = StreamTableEnvironment.create(writing);
        writerSql.executeSql(SqlTables.walsinkTable("src", COLUMNS, src, "sink.parallelism", "2"));
        DataGeneratorSource<Row> input = new DataGeneratorSource<>(
                new WriterInput(writer, writerFailAt),
                ROWS,
                RateLimiterStrategy.perCheckpoint(ROWS_PER_CHECKPOINT),
                ROW);
        writerSql.createTemporaryView(
                "changes",
                writerSql.fromChangelogStream(
                        writing.fromSource(input, WatermarkStrategy.noWatermarks(), "changes")
                                .setParallelism(1), // one ordered changelog
                        CHANGES));
        TableResult writerJob = writerSql.executeSql("INSERT INTO src SELECT id, name FROM changes");
        awaitPublished(src, seed); // so that the read starts with a snapshot, then follows changes

        StreamExecutionEnvironment reading = environment();
        StreamTableEnvironment readerSql = StreamTableEnvironment.create(reading);
        readerSql.executeSql(SqlTables.walsinkTable(
                "src", COLUMNS, src, "scan.startup-mode", "initial", "scan.discovery-interval", "50ms"));
        VersionedChangelog read = new VersionedChangelog(writer);
        Map<Long, String> model = writer.model(ROWS);
        // The upsert changelog as the source emits it: a ChangelogNormalize (what collecting the
        // query's TableResult adds) would drop a change repeated with the same row and hide it.
        try (CloseableIterator<String> changes = readerSql
                .toChangelogStream(readerSql.sqlQuery("SELECT id, name FROM src"), CHANGES, ChangelogMode.upsert())
                .map(new ReaderFailsOnce(readerFailAt))
                .executeAndCollect("continuous read")) {
            AtomicReference<Throwable> collectFailure = new AtomicReference<>();
            Thread collector = new Thread(() -> {
                try {
                    while (changes.hasNext()) {
                        read.add(changes.next());
                    }
                } catch (RuntimeException e) {
                    collectFailure.set(e); // also when the iterator is closed below
                }
            });
            collector.setDaemon(true);
            collector.start();
            writerJob.await(2, TimeUnit.MINUTES);
            assertThat(awaitApplied(read, model, collectFailure))
                    .as("seed %s", seed)
                    .isEqualTo(model);
        }
        System.out.printf(
                "seed %s: %.1f s, writer failed at row %s and resumed at %s; reader checkpointed its first rows with the"
                        + " writer at row %s, failed at its row %s (writer at row %s then), %s changes read%n",
                seed,
                (System.nanoTime() - started) / 1e9,
                writerFailAt,
                WRITER_RESUMED_AT.get(),
                GENERATED_AT_FIRST_READER_CHECKPOINT.get(),
                readerFailAt,
                GENERATED_WHEN_READER_FAILED.get(),
                read.size());
        assertThat(WRITER_FAILED).as("the writer failed once, seed %s", seed).isTrue();
        assertThat(WRITER_RESUMED_AT.get())
                .as("the writer resumed from a checkpoint, not from the start, seed %s", seed)
                .isPositive();
        assertThat(READER_FAILED).as("the reader failed once, seed %s", seed).isTrue();
        read.assertInOrderOncePerKey(seed);
    }

    /** Reads the table (outside Flink) until it holds a row, at most two minutes. */
    private static void awaitPublished(Path table, long seed) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (SqlTables.read(table, ReadMode.COMMITTED).isEmpty()) {
            assertThat(System.nanoTime())
                    .as("the writer published rows, seed %s", seed)
                    .isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(50); // pause between polls of the condition
        }
    }

    /**
     * Polls the changes read so far until, applied to a map, they equal {@code model}, at most two
     * minutes; returns the last map, which the caller compares (a timeout shows the difference).
     */
    private static Map<Long, String> awaitApplied(
            VersionedChangelog read, Map<Long, String> model, AtomicReference<Throwable> collectFailure)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        Map<Long, String> applied = read.applied();
        while (!applied.equals(model) && System.nanoTime() < deadline && collectFailure.get() == null) {
            TimeUnit.MILLISECONDS.sleep(100); // pause between polls of the condition
            applied = read.applied();
        }
        assertThat(collectFailure.get()).as("the read's collect failed").isNull();
        assertThat(read.size()).as("changes were read").isPositive();
        return applied;
    }
}
