package io.walsink.bench.jobs;

import io.walsink.flink.WalSink;
import java.nio.file.Path;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The three jobs of {@link PipelineLatencyReport}, all on one {@link InProcessCluster}: the writer
 * of {@code src}, the pipeline under test ({@code INSERT INTO dst SELECT ... FROM src}) and the
 * observer that notes when each row shows up in a continuous read of {@code src} and of {@code dst}.
 */
final class PipelineJobs {
    static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), new BigIntType(), VarCharType.STRING_TYPE},
            new String[] {"seq", "created_ms", "payload"});
    private static final String COLUMNS =
            "seq BIGINT, created_ms BIGINT, payload STRING, PRIMARY KEY (seq) NOT ENFORCED";
    private static final String PAYLOAD = "sixteen bytes..."; // a row of realistic width, not just two longs

    private PipelineJobs() {}

    /**
     * Rows {@code 0 .. rows-1} into {@code src} at a steady rate (one source subtask), each with
     * the wall-clock time it left the source; checkpoints every {@code checkpointMs} publish them.
     * Building the sink creates {@code src}, so the other jobs can be planned before this one runs.
     */
    static StreamExecutionEnvironment writer(
            InProcessCluster cluster, Path src, PipelineLatencyReport.Settings s, long checkpointMs) {
        StreamExecutionEnvironment env = cluster.env();
        env.setParallelism(s.parallelism());
        env.enableCheckpointing(checkpointMs);
        DataGeneratorSource<RowData> rows = new DataGeneratorSource<>(
                PipelineJobs::generated, s.rows(), RateLimiterStrategy.perSecond(s.rate()), InternalTypeInfo.of(ROW));
        env.fromSource(rows, WatermarkStrategy.noWatermarks(), "generated rows")
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(src.toString())
                        .primaryKey("seq")
                        .createTableIfMissing(s.buckets())
                        .build())
                .name("src writer");
        return env;
    }

    private static RowData generated(long seq) {
        return GenericRowData.of(seq, System.currentTimeMillis(), StringData.fromString(PAYLOAD));
    }

    /** The job under test, submitted; its INSERT creates {@code dst}. */
    static TableResult pipeline(
            InProcessCluster cluster, Path src, Path dst, PipelineLatencyReport.Settings s, long checkpointMs) {
        StreamExecutionEnvironment env = cluster.env();
        env.setParallelism(s.parallelism());
        env.enableCheckpointing(checkpointMs);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql(table("src", src, continuous(s.discoveryMs())));
        sql.executeSql(table("dst", dst, "'buckets' = '" + s.buckets() + "'"));
        return sql.executeSql("INSERT INTO dst SELECT seq, created_ms, payload FROM src");
    }

    /**
     * Continuous reads of both tables (one subtask each, no checkpoints: nothing to restore) into
     * {@link ArrivalSink}s writing the logs {@code srcLog} and {@code dstLog}. The upsert changelog
     * is taken as it comes, so Flink adds no normalising state in front of the sinks.
     */
    static JobClient observer(
            InProcessCluster cluster, Path src, Path dst, long discoveryMs, String srcLog, String dstLog)
            throws Exception {
        StreamExecutionEnvironment env = cluster.env();
        env.setParallelism(1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql(table("src_seen", src, continuous(discoveryMs)));
        sql.executeSql(table("dst_seen", dst, continuous(discoveryMs)));
        observe(sql, "src_seen", srcLog);
        observe(sql, "dst_seen", dstLog);
        return env.executeAsync("pipeline latency observer");
    }

    private static void observe(StreamTableEnvironment sql, String table, String log) {
        sql.toChangelogStream(
                        sql.sqlQuery("SELECT seq, created_ms FROM " + table), Schema.derived(), ChangelogMode.upsert())
                .sinkTo(new ArrivalSink(log))
                .name("arrivals in " + table);
    }

    private static String continuous(long discoveryMs) {
        return "'scan.startup-mode' = 'initial', 'scan.discovery-interval' = '" + discoveryMs + " ms'";
    }

    private static String table(String name, Path path, String options) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'walsink', 'path' = '" + path + "', "
                + options + ")";
    }
}
