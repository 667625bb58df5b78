package io.walsink.bench.paimon;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs q1-shaped INSERTs into a Paimon primary-key table or into blackhole, each on a local
 * cluster of its own in this JVM, as the benchmarks' walsink SQL pipeline runs them: the same
 * source DDL, SELECT list and columns (given by the benchmarks, which build them for walsink),
 * the same parallelism, checkpoint interval, checkpoint storage and no restarts. A Paimon table
 * is read back after its run.
 *
 * <p>Its one argument is a properties file: {@code columns}, {@code parallelism}, {@code
 * checkpoint-ms}, {@code final-checkpoint}, and runs {@code run.0.*}, {@code run.1.*}, ... each
 * with {@code name}, {@code sink} ({@code paimon} or {@code blackhole}), {@code buckets}, {@code
 * rows}, {@code source} (the CREATE TABLE of {@code q1_source}), {@code select} and optionally
 * its own {@code final-checkpoint}. It prints one
 * line per run: {@value #PREFIX} {@code name sink buckets rows net-ms}, and for Paimon then the
 * table's rows, distinct keys and the sum of {@code v1}.
 */
public final class PaimonQ1 {
    /** What starts every result line (the benchmarks' {@code ChildJvm.RESULT}), so the caller can tell them apart. */
    public static final String PREFIX = "RESULT";

    private static final String TABLE = "paimon.`default`.q1_sink";

    private PaimonQ1() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: PaimonQ1 RUNS.properties");
        }
        Properties spec = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[0]))) {
            spec.load(in);
        }
        for (int i = 0; spec.containsKey("run." + i + ".name"); i++) {
            String run = "run." + i + ".";
            Path dir = Files.createTempDirectory("paimon-q1-");
            try {
                String line = run(spec, run, dir);
                System.out.println(line);
                System.out.flush();
            } finally {
                deleteRecursively(dir);
            }
        }
    }

    private static String run(Properties spec, String run, Path dir) throws Exception {
        String sink = spec.getProperty(run + "sink");
        boolean paimon =
                switch (sink) {
                    case "paimon" -> true;
                    case "blackhole" -> false;
                    default -> throw new IllegalArgumentException(
                            "sink must be paimon or blackhole, got '" + sink + "'");
                };
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConfig(spec, run));
        env.setParallelism(Integer.parseInt(spec.getProperty("parallelism")));
        env.enableCheckpointing(Long.parseLong(spec.getProperty("checkpoint-ms")));
        StreamTableEnvironment t = StreamTableEnvironment.create(
                env, EnvironmentSettings.newInstance().inStreamingMode().build());
        t.executeSql(spec.getProperty(run + "source"));
        String columns = spec.getProperty("columns") + ", PRIMARY KEY (id) NOT ENFORCED";
        String target;
        if (paimon) {
            createCatalog(t, dir);
            t.executeSql("CREATE TABLE " + TABLE + " (" + columns + ") WITH ('bucket' = '"
                    + spec.getProperty(run + "buckets") + "')");
            target = TABLE;
        } else {
            t.executeSql("CREATE TEMPORARY TABLE q1_sink (" + columns + ") WITH ('connector' = 'blackhole')");
            target = "q1_sink";
        }
        TableResult insert = t.executeSql(
                "INSERT INTO " + target + " SELECT " + spec.getProperty(run + "select") + " FROM q1_source");
        insert.await();
        JobExecutionResult done =
                insert.getJobClient().orElseThrow().getJobExecutionResult().get();
        String line = String.join(
                " ",
                PREFIX,
                spec.getProperty(run + "name"),
                sink,
                spec.getProperty(run + "buckets"),
                spec.getProperty(run + "rows"),
                Long.toString(done.getNetRuntime(TimeUnit.MILLISECONDS)));
        return paimon ? line + " " + readBack(dir) : line;
    }

    /** The table's rows, distinct keys and sum of v1, read by a batch query after the job. */
    private static String readBack(Path dir) throws Exception {
        TableEnvironment batch = TableEnvironment.create(
                EnvironmentSettings.newInstance().inBatchMode().build());
        createCatalog(batch, dir);
        try (CloseableIterator<Row> rows = batch.executeSql(
                        "SELECT COUNT(*), COUNT(DISTINCT id), SUM(v1) FROM " + TABLE)
                .collect()) {
            Row r = rows.next();
            return r.getField(0) + " " + r.getField(1) + " " + r.getField(2);
        }
    }

    private static void createCatalog(TableEnvironment t, Path dir) {
        t.executeSql("CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + dir.resolve("warehouse").toUri() + "')");
    }

    /** As the benchmarks configure walsink's runs (see their Q1Pipelines). */
    private static Configuration flinkConfig(Properties spec, String run) {
        Configuration conf = new Configuration();
        conf.set(
                CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH,
                Boolean.parseBoolean(spec.getProperty(run + "final-checkpoint", spec.getProperty("final-checkpoint"))));
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, InMemoryCheckpoints.class.getName());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return conf;
    }

    /**
     * Best effort: a finished job's cluster may still be removing its checkpoint files, and a
     * leftover temporary folder must not fail a run whose result is already printed.
     */
    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not remove " + dir + ": " + e);
        }
    }
}
