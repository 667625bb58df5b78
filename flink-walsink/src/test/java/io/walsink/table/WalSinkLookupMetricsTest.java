package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.format.table.LanceTables;
import io.walsink.format.table.TableSharding;
import io.walsink.testing.BucketShardWriters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * An uncached lookup join reports, on its function's metric group, the lance-core scans its
 * probes made and the rows they read: every probe scans at least one dataset, and the table's
 * SSTables hold rows, so both gauges end positive and the scans are at least the probes.
 */
class WalSinkLookupMetricsTest {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.withSlots(1, REPORTER.addToConfiguration(new Configuration()));

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void theLookupFunctionReportsItsScansAndTheRowsTheyRead() throws Exception {
        long seed = System.nanoTime();
        System.out.println("WalSinkLookupMetricsTest seed " + seed);
        Path path = dir.resolve("t");
        Schema schema = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
        LanceTables.create(path.toString(), schema, List.of("id"), TableSharding.bucket("id", 2), Map.of());
        Map<Long, String> model = new TreeMap<>();
        try (RootAllocator allocator = new RootAllocator();
                BucketShardWriters writers = new BucketShardWriters(path.toString(), allocator)) {
            writers.writeRandomAndPublish(new Random(seed), 100, 40, "g1", model);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        WalSinkSqlLookupJoinTest.declare(sql, path, "NONE");
        int probes = 30;
        WalSinkSqlLookupJoinTest.probeView(
                sql, env.fromSequence(0, probes - 1).map(id -> id).returns(Long.class));
        TableResult result = sql.executeSql(
                "SELECT p.f0, t.name FROM probe AS p LEFT JOIN t FOR SYSTEM_TIME AS OF p.proc ON p.f0 = t.id");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(rows::add);
        }
        assertThat(rows).as("seed %s", seed).hasSize(probes);

        Map<String, Metric> metrics =
                REPORTER.findMetrics(result.getJobClient().orElseThrow().getJobID(), "walsink");
        assertThat(gauge(metrics, "lookupDatasetScans")).as("seed %s", seed).isGreaterThanOrEqualTo(probes);
        assertThat(gauge(metrics, "lookupRowsRead")).as("seed %s", seed).isPositive();
    }

    private static long gauge(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("walsink." + name))
                .map(e -> (Long) ((Gauge<?>) e.getValue()).getValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric walsink." + name + " in " + metrics.keySet()));
    }
}
