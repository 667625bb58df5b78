package io.walsink.table;

import static io.walsink.testing.Folders.ssTableFolders;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.read.ReadMode;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether SSTables wait for completed checkpoints is decided by the running job's checkpointing
 * configuration, wherever it was set: a SQL {@code SET}, a configuration applied after the
 * pipeline was built, or the environment. Each job checkpoints only once an hour (and not before an
 * hour: Flink draws the first delay between the minimum pause and the interval), so while it
 * runs a sink that follows checkpoints publishes nothing, and one that thinks checkpointing is
 * off publishes every SSTable it writes.
 */
class CheckpointingAtRunTimeTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @TempDir
    Path dir;

    private static final String COLUMNS = "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED";

    private String[] sinkOptions() {
        return new String[] {"buckets", "2", "sink.memtable.max-rows", "500", "sink.flush-interval", "20ms"};
    }

    @Test
    void anIntervalSetLikeSqlSetHoldsPublicationUntilACheckpoint() throws Exception {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        // What the SQL client's SET does: the session's table configuration.
        sql.getConfig().set("execution.checkpointing.interval", "1h");
        // Flink draws the first checkpoint's delay between the minimum pause and the interval.
        sql.getConfig().set("execution.checkpointing.min-pause", "1h");
        sql.getConfig().set("parallelism.default", "1");
        Path table = dir.resolve("t");
        JobClient job = insertGeneratedRows(sql, table);
        try {
            awaitSsTablesWritten(table, 4);
            assertThat(SqlTables.read(table, ReadMode.COMMITTED))
                    .as("published before any checkpoint")
                    .isEmpty();
            assertThat(SqlTables.read(table, ReadMode.LATEST)).isNotEmpty();
        } finally {
            cancelAndAwait(job);
        }
    }

    @Test
    void anIntervalConfiguredAfterThePipelineWasBuiltHoldsPublication() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        Path table = dir.resolve("t");
        declareTables(sql, table);
        sql.createStatementSet()
                .addInsertSql("INSERT INTO t SELECT id, name FROM gen")
                .attachAsDataStream();
        // As a cluster's or a submitter's configuration would, after the graph was built.
        Configuration later = new Configuration();
        later.setString("execution.checkpointing.interval", "1h");
        later.setString("execution.checkpointing.min-pause", "1h");
        env.configure(later);
        JobClient job = env.executeAsync("walsink, checkpointing configured late");
        try {
            awaitSsTablesWritten(table, 4);
            assertThat(SqlTables.read(table, ReadMode.COMMITTED))
                    .as("published before any checkpoint")
                    .isEmpty();
        } finally {
            cancelAndAwait(job);
        }
    }

    @Test
    void withoutCheckpointingWrittenSsTablesArePublished() throws Exception {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        sql.getConfig().set("parallelism.default", "1");
        Path table = dir.resolve("t");
        JobClient job = insertGeneratedRows(sql, table);
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            int polls = 0;
            while (SqlTables.read(table, ReadMode.COMMITTED).isEmpty()) {
                polls++;
                assertThat(System.nanoTime())
                        .as("nothing published within 60 s")
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(ssTableFolders(table)).isPositive();
            System.out.println("published after " + polls + " polls");
        } finally {
            cancelAndAwait(job);
        }
    }

    /**
     * Batch execution takes no checkpoints even with an interval configured (a cluster default,
     * say). A sink that decided from the interval alone waited for a checkpoint that never came:
     * the job finished with nothing published.
     */
    @Test
    void aBatchJobPublishesAtTheEndEvenWithAnIntervalConfigured() throws Exception {
        TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        sql.getConfig().set("execution.checkpointing.interval", "100ms");
        sql.getConfig().set("parallelism.default", "1");
        Path table = dir.resolve("t");
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, table, sinkOptions()));
        sql.executeSql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        assertThat(SqlTables.read(table, ReadMode.COMMITTED)).hasSize(3);
    }

    /** Starts an unbounded job that writes generated rows into a walsink table at {@code table}. */
    private JobClient insertGeneratedRows(TableEnvironment sql, Path table) {
        declareTables(sql, table);
        return sql.executeSql("INSERT INTO t SELECT id, name FROM gen")
                .getJobClient()
                .orElseThrow();
    }

    private void declareTables(TableEnvironment sql, Path table) {
        sql.executeSql(SqlTables.walsinkTable("t", COLUMNS, table, sinkOptions()));
        sql.executeSql("CREATE TABLE gen (id BIGINT, name STRING) WITH ('connector' = 'datagen', "
                + "'rows-per-second' = '20000', 'fields.id.min' = '0', 'fields.id.max' = '100000')");
    }

    /** Cancels and waits until the job has stopped writing, so the temporary folder can go. */
    private static void cancelAndAwait(JobClient job) throws Exception {
        job.cancel().get();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            Thread.sleep(20);
        }
    }

    private static void awaitSsTablesWritten(Path table, int count) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ssTableFolders(table) < count) {
            assertThat(System.nanoTime())
                    .as("fewer than " + count + " SSTables written within 60 s")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
