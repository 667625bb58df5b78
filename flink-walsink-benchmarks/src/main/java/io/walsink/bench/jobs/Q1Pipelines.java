package io.walsink.bench.jobs;

import io.walsink.bench.support.ProcessCpu;
import io.walsink.bench.support.ThreadCpu;
import io.walsink.flink.SinkOptions;
import io.walsink.flink.WalSink;
import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.format.sharding.BucketHash;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * The five q1 jobs. Each runs on its own local cluster (Flink's local environment starts one per
 * job), so no run inherits another's task threads, buffers or direct memory; the JVM, its JIT
 * and lance-core's native library are shared by all runs of a process. A run's time is the job's
 * net runtime (from its submission to its end, cluster start excluded), which for walsink
 * includes the end-of-input WAL appends, SSTable writes and publication.
 */
final class Q1Pipelines {
    /**
     * A walsink pipeline or one of the references it is compared with. A reference's {@code sink}
     * is its name in the report, {@code definition} says what it runs, and {@code goal} is the
     * ratio walsink / reference to reach (NaN for the walsink pipelines and a reference printed without one).
     */
    enum Pipeline {
        DATASTREAM_WALSINK(
                "DataStream", "WalSink.forRowData", Double.NaN, "source -> WalSink (its own keyBy by bucket)"),
        DATASTREAM_DISCARD_KEYED(
                "DataStream",
                "discarding sink behind the same keyBy",
                0.6,
                "source -> keyBy(the key's Lance bucket, routed as WalSink routes it) -> DiscardingSink:"
                        + " the shuffle any keyed upsert sink needs, then nothing"),
        DATASTREAM_DISCARD_UNSHUFFLED(
                "DataStream",
                "discarding sink, no shuffle",
                Double.NaN,
                "source -> DiscardingSink, chained into the source's task: generating the rows and nothing else"),
        SQL_WALSINK("SQL", "'connector'='walsink'", Double.NaN, "INSERT INTO a 'connector'='walsink' table"),
        SQL_BLACKHOLE(
                "SQL",
                "'connector'='blackhole'",
                0.75,
                "the same INSERT into a 'connector'='blackhole' table with the same columns and primary key"
                        + " (the planner chains datagen -> calc -> blackhole, no shuffle)");

        final String api;
        final String sink;
        final double goal;
        final String definition;

        Pipeline(String api, String sink, double goal, String definition) {
            this.api = api;
            this.sink = sink;
            this.goal = goal;
            this.definition = definition;
        }

        boolean walsink() {
            return this == DATASTREAM_WALSINK || this == SQL_WALSINK;
        }
    }

    /**
     * {@code memtableMaxAge} and {@code compaction}: the walsink options of those names, for
     * walsink runs; {@code walAppendsPerSecond}: {@code sink.wal.max-appends-per-second}, 0 for
     * the sink's default; {@code sqlFromGenerator}: SQL reads the DataStream jobs' generator instead of
     * {@code datagen} (see {@link #sql}).
     */
    record Settings(
            Q1Rows rows,
            int buckets,
            Duration checkpointInterval,
            Duration flushInterval,
            boolean finalCheckpoint,
            Duration memtableMaxAge,
            boolean compaction,
            boolean sqlFromGenerator,
            int walAppendsPerSecond) {
        int walAppendsPerSecondOrDefault() {
            return walAppendsPerSecond > 0
                    ? walAppendsPerSecond
                    : SinkOptions.WAL_MAX_APPENDS_PER_SECOND.defaultValue();
        }

        Settings withRows(Q1Rows other) {
            return new Settings(
                    other,
                    buckets,
                    checkpointInterval,
                    flushInterval,
                    finalCheckpoint,
                    memtableMaxAge,
                    compaction,
                    sqlFromGenerator,
                    walAppendsPerSecond);
        }

        Settings withBuckets(int other) {
            return new Settings(
                    rows,
                    other,
                    checkpointInterval,
                    flushInterval,
                    finalCheckpoint,
                    memtableMaxAge,
                    compaction,
                    sqlFromGenerator,
                    walAppendsPerSecond);
        }
    }

    private static final long UNTHROTTLED = 1_000_000_000_000L;

    private Q1Pipelines() {}

    /**
     * How long a run took and what it cost: the job's net runtime (Flink's, from its submission
     * to its end); the time from its first generated row to the end (-1 for SQL's datagen, which
     * cannot tell); and the process CPU time and minor page faults over that span (from the INSERT's
     * submission for datagen, so planning and start-up are in it, alike for both sides of a comparison).
     */
    record Timing(long netNanos, long fromFirstRowNanos, long cpuNanos, long minorFaults) {
        /** What rows/s is taken from: the first generated row when known, the net runtime otherwise. */
        long nanos() {
            return fromFirstRowNanos > 0 ? fromFirstRowNanos : netNanos;
        }
    }

    /**
     * When the running DataStream job generated its first row (the local cluster runs in this
     * JVM, so the generator can tell the runner): deploying and starting the tasks, a second or
     * more on a loaded machine, is then not counted against a job that needs only seconds.
     */
    private static final AtomicLong FIRST_ROW_NANOS = new AtomicLong();

    /** The process's CPU time when the first row was generated (set with {@link #FIRST_ROW_NANOS}). */
    private static final AtomicLong FIRST_ROW_CPU_NANOS = new AtomicLong();

    /** The process's minor page faults when the first row was generated. */
    private static final AtomicLong FIRST_ROW_FAULTS = new AtomicLong();

    /**
     * Runs {@code pipeline} to its end; walsink pipelines write a new table at {@code table}.
     * Checkpoints stay in memory ({@link InMemoryCheckpoints}). A failure fails the run (no restarts).
     */
    static Timing run(Pipeline pipeline, Settings s, Path table) throws Exception {
        Configuration conf = flinkConfig(s);
        return switch (pipeline) {
            case DATASTREAM_WALSINK, DATASTREAM_DISCARD_KEYED, DATASTREAM_DISCARD_UNSHUFFLED -> dataStream(
                    pipeline, s, table, conf);
            case SQL_WALSINK, SQL_BLACKHOLE -> sql(pipeline.walsink(), s, table, conf);
        };
    }

    private static Timing dataStream(Pipeline pipeline, Settings s, Path table, Configuration conf) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(s.rows().parallelism);
        // Set for every side, so the keyed discarding job's routing places buckets as the sink's does.
        int maxParallelism =
                Math.max(KeyGroupRangeAssignment.computeDefaultMaxParallelism(s.rows().parallelism), s.buckets());
        env.setMaxParallelism(maxParallelism);
        env.enableCheckpointing(s.checkpointInterval().toMillis());
        Q1Rows rows = s.rows();
        GeneratorFunction<Long, RowData> changes = index -> {
            if (FIRST_ROW_NANOS.get() == 0 && FIRST_ROW_NANOS.compareAndSet(0, System.nanoTime())) {
                FIRST_ROW_FAULTS.set(ThreadCpu.processMinorFaults());
                FIRST_ROW_CPU_NANOS.set(ProcessCpu.nanos());
            }
            return rows.row(rows.changeOfIndex(index));
        };
        DataStream<RowData> source = env.fromSource(
                new DataGeneratorSource<>(changes, rows.rows, InternalTypeInfo.of(Q1Rows.ROW_TYPE)),
                WatermarkStrategy.noWatermarks(),
                "q1 changes");
        switch (pipeline) {
            case DATASTREAM_WALSINK -> source.sinkTo(WalSink.forRowData(Q1Rows.ROW_TYPE)
                    .path(table.toString())
                    .primaryKey("id")
                    .createTableIfMissing(s.buckets())
                    .flushInterval(s.flushInterval())
                    .memtableMaxAge(s.memtableMaxAge())
                    .compaction(s.compaction())
                    .walMaxAppendsPerSecond(s.walAppendsPerSecondOrDefault())
                    .build());
            case DATASTREAM_DISCARD_KEYED -> source.keyBy(new BucketOfKey(s.buckets(), maxParallelism), Types.INT)
                    .sinkTo(new DiscardingSink<>());
            case DATASTREAM_DISCARD_UNSHUFFLED -> source.sinkTo(new DiscardingSink<>());
            default -> throw new IllegalArgumentException(pipeline + " is not a DataStream pipeline");
        }
        FIRST_ROW_NANOS.set(0);
        FIRST_ROW_CPU_NANOS.set(0);
        FIRST_ROW_FAULTS.set(0);
        JobExecutionResult result = env.execute("q1 " + pipeline.sink);
        long end = System.nanoTime();
        long endCpu = ProcessCpu.nanos();
        long endFaults = ThreadCpu.processMinorFaults();
        long first = FIRST_ROW_NANOS.get();
        return new Timing(
                TimeUnit.MILLISECONDS.toNanos(result.getNetRuntime(TimeUnit.MILLISECONDS)),
                first == 0 ? -1 : end - first,
                first == 0 ? -1 : endCpu - FIRST_ROW_CPU_NANOS.get(),
                first == 0 ? -1 : endFaults - FIRST_ROW_FAULTS.get());
    }

    /**
     * The same INSERT for both SQL sinks. Its source is SQL's {@code datagen} sequence (the
     * issue's reference) unless {@code sqlFromGenerator}: then a view of the change numbers from
     * the FLIP-27 generator the DataStream jobs use. The datagen sequence costs more per row than
     * the rest of the blackhole job, and keeps every value it has yet to emit in operator state,
     * which the checkpoints hold in memory ({@link InMemoryCheckpoints}). datagen cannot tell its first row: SQL's time is
     * then Flink's net runtime and its CPU counted from the submission, for both sides alike.
     */
    private static Timing sql(boolean walsink, Settings s, Path table, Configuration conf)
            throws ExecutionException, InterruptedException {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(s.rows().parallelism);
        env.enableCheckpointing(s.checkpointInterval().toMillis());
        StreamTableEnvironment t = StreamTableEnvironment.create(
                env, EnvironmentSettings.newInstance().inStreamingMode().build());
        if (s.sqlFromGenerator()) {
            t.createTemporaryView(
                    "q1_source", t.fromDataStream(changeNumbers(env, s.rows())).as("i"));
        } else {
            t.executeSql(datagenSourceDdl(s.rows()));
        }
        String with = walsink
                ? "'connector' = 'walsink', 'path' = '" + table + "', 'buckets' = '" + s.buckets()
                        + "', 'sink.flush-interval' = '" + s.flushInterval().toMillis() + "ms'"
                        + ", 'sink.memtable.max-age' = '" + s.memtableMaxAge().toMillis() + "ms'"
                        + ", 'sink.compaction.enabled' = '" + s.compaction() + "'"
                        + ", 'sink.wal.max-appends-per-second' = '" + s.walAppendsPerSecondOrDefault() + "'"
                : "'connector' = 'blackhole'";
        t.executeSql("CREATE TEMPORARY TABLE q1_sink (" + Q1Rows.columnsDdl()
                + ", PRIMARY KEY (id) NOT ENFORCED) WITH (" + with + ")");
        FIRST_ROW_NANOS.set(0);
        FIRST_ROW_CPU_NANOS.set(0);
        FIRST_ROW_FAULTS.set(0);
        long submitted = System.nanoTime();
        long submittedFaults = ThreadCpu.processMinorFaults();
        long submittedCpu = ProcessCpu.nanos();
        TableResult result =
                t.executeSql("INSERT INTO q1_sink SELECT " + s.rows().selectList() + " FROM q1_source");
        result.await();
        JobExecutionResult done =
                result.getJobClient().orElseThrow().getJobExecutionResult().get();
        long endCpu = ProcessCpu.nanos();
        long endFaults = ThreadCpu.processMinorFaults();
        long first = FIRST_ROW_NANOS.get();
        long net = TimeUnit.MILLISECONDS.toNanos(done.getNetRuntime(TimeUnit.MILLISECONDS));
        return first == 0
                ? new Timing(net, -1, endCpu - submittedCpu, endFaults - submittedFaults)
                : new Timing(
                        net,
                        System.nanoTime() - first,
                        endCpu - FIRST_ROW_CPU_NANOS.get(),
                        endFaults - FIRST_ROW_FAULTS.get());
    }

    /** SQL's {@code q1_source}: the datagen sequence of change numbers (also what the Paimon reference reads). */
    static String datagenSourceDdl(Q1Rows rows) {
        // datagen throttles to 10 000 rows/s unless told otherwise.
        return "CREATE TEMPORARY TABLE q1_source (i BIGINT) WITH ('connector' = 'datagen',"
                + " 'rows-per-second' = '" + UNTHROTTLED + "', 'fields.i.kind' = 'sequence',"
                + " 'fields.i.start' = '0', 'fields.i.end' = '" + (rows.rows - 1) + "')";
    }

    /** The change numbers of {@code rows}, each subtask's in increasing order, noting the first. */
    private static DataStream<Long> changeNumbers(StreamExecutionEnvironment env, Q1Rows rows) {
        GeneratorFunction<Long, Long> changes = index -> {
            if (FIRST_ROW_NANOS.get() == 0 && FIRST_ROW_NANOS.compareAndSet(0, System.nanoTime())) {
                FIRST_ROW_FAULTS.set(ThreadCpu.processMinorFaults());
                FIRST_ROW_CPU_NANOS.set(ProcessCpu.nanos());
            }
            return rows.changeOfIndex(index);
        };
        return env.fromSource(
                new DataGeneratorSource<>(changes, rows.rows, Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "q1 change numbers");
    }

    /**
     * Without the final checkpoint a finished job ends at once. With it, every job idles at its
     * end until the next periodic checkpoint fires: up to a whole interval (10 s) of waiting,
     * at a phase Flink draws at random, which would swamp a 10-30 s run.
     */
    private static Configuration flinkConfig(Settings s) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, s.finalCheckpoint());
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, InMemoryCheckpoints.class.getName());
        // A restarted job re-reads part of its input: its time would not be a run's time.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return conf;
    }

    /**
     * The walsink's own {@code keyBy}: Lance's bucket of the int64 key, carried by the sink's
     * routing key for that bucket (which spreads the buckets over the subtasks), so both sides
     * shuffle alike; the key is the routing's one boxed {@code Integer} per bucket, as the sink's
     * own selector returns it, so neither side allocates a key per record.
     */
    static final class BucketOfKey implements KeySelector<RowData, Integer> {
        private static final long serialVersionUID = 1L;
        private final int buckets;
        private final BucketRouting routing;

        BucketOfKey(int buckets, int maxParallelism) {
            this.buckets = buckets;
            this.routing = new BucketRouting(buckets, maxParallelism);
        }

        @Override
        public Integer getKey(RowData row) {
            return routing.boxedKeyOf(BucketHash.bucketOf(BucketHash.hashLong(row.getLong(0)), buckets));
        }
    }
}
