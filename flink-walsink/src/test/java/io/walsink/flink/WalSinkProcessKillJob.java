package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * The job {@link WalSinkProcessKillTest} runs in a child JVM and kills: a local Flink job writing
 * the first {@code n} changes of a seeded {@link ChangeGenerator} through {@link WalSink}, at
 * {@code rowsPerSecond}, checkpointing every 200 ms into {@code checkpointDir} with checkpoints
 * retained on cancellation, optionally restored from a retained checkpoint. The source is a
 * {@link DataGeneratorSource} of change numbers: change {@code i} is a function of {@code i} alone
 * and the source checkpoints its position, so a restored job re-sends exactly the changes after the
 * checkpoint. A {@link CheckpointCovers.Recorder} right after it records into {@code coverDir} which
 * changes each checkpoint covers. With {@code maintenance} the sink compacts and collects garbage
 * ({@value #GC_RETENTION_SECONDS} s retention: a restored checkpoint is at most a JVM start old)
 * after every checkpoint.
 *
 * <p>Arguments: {@code table checkpointDir coverDir maintenance keys deleteEvery seed n rowsPerSecond
 * [restorePath]}. Any failure ends the process with a non-zero exit code (no restarts inside the
 * child).
 */
public final class WalSinkProcessKillJob {
    static final long CHECKPOINT_INTERVAL_MILLIS = 200;
    static final long GC_RETENTION_SECONDS = 15;

    private WalSinkProcessKillJob() {}

    public static void main(String[] args) throws Exception {
        Path table = Path.of(args[0]);
        Path checkpointDir = Path.of(args[1]);
        Path coverDir = Path.of(args[2]);
        boolean maintenance = Boolean.parseBoolean(args[3]);
        ChangeGenerator changes =
                new ChangeGenerator(Integer.parseInt(args[4]), Integer.parseInt(args[5]), Long.parseLong(args[6]));
        long n = Long.parseLong(args[7]);
        double rowsPerSecond = Double.parseDouble(args[8]);

        Configuration config = configuration(checkpointDir, args.length > 9 ? args[9] : null);
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        pipeline(env, changes, n, rowsPerSecond, coverDir, numbers -> numbers, sink(table, maintenance, null));
        env.execute("walsink process kill");
    }

    /**
     * A local job's configuration: checkpoints every {@value #CHECKPOINT_INTERVAL_MILLIS} ms into
     * {@code checkpointDir}, retained on cancellation (and so on SIGKILL), restored from {@code
     * restore} unless it is null; the REST endpoint on any free port.
     */
    static Configuration configuration(Path checkpointDir, String restore) {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(CHECKPOINT_INTERVAL_MILLIS));
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                checkpointDir.toUri().toString());
        if (restore != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
        }
        config.set(RestOptions.BIND_PORT, "0"); // other builds may run on this machine
        return config;
    }

    /**
     * Change numbers {@code 0 .. n-1} at {@code rowsPerSecond}, through {@code faults} (any operators
     * on the numbers, at parallelism 1) and a {@link CheckpointCovers.Recorder} into {@code sink}.
     */
    static void pipeline(
            StreamExecutionEnvironment env,
            ChangeGenerator changes,
            long n,
            double rowsPerSecond,
            Path coverDir,
            UnaryOperator<DataStream<Long>> faults,
            WalSink<RowData> sink) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, n, RateLimiterStrategy.perSecond(rowsPerSecond), Types.LONG);
        faults.apply(env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                        .uid("changes")
                        .setParallelism(1))
                .map(new CheckpointCovers.Recorder(coverDir))
                .uid("covers")
                .setParallelism(1)
                .map(changes::change)
                .returns(WalSinkMiniClusterTest.rowDataType())
                .uid("rows")
                .setParallelism(1)
                .sinkTo(sink)
                .uid("walsink-process-kill");
    }

    /**
     * The sink of these jobs: 4 buckets, small memtables; with {@code maintenance} compaction and
     * garbage collection after every checkpoint. {@code storeWrapper} may be null.
     */
    static WalSink<RowData> sink(Path table, boolean maintenance, WalSinkOptions.StoreWrapper storeWrapper) {
        return WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(50))
                .memtableMaxRows(500)
                // with maintenance, every checkpoint publishes, so the three readers see rows early
                .memtableMaxAge(maintenance ? Duration.ZERO : Duration.ofMinutes(1))
                .compaction(maintenance)
                .garbageCollection(maintenance, Duration.ofSeconds(GC_RETENTION_SECONDS))
                .maintenanceInterval(Duration.ZERO)
                .storeWrapper(storeWrapper)
                .build();
    }
}
