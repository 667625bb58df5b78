package io.walsink.bench.jobs;

import io.walsink.bench.support.ChildJvm;
import io.walsink.bench.support.LocalShardTable;
import java.io.File;
import java.io.IOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Paimon reference's JVM: the {@code paimon-reference} module (beside this one, on Flink 1.20),
 * started with its own classpath, so no Flink 1.20 class is ever on this JVM's. It is given the
 * walsink SQL pipeline's source DDL, columns and SELECT list, runs each requested INSERT on a
 * local cluster of its own, and prints one result line per run.
 */
final class PaimonJvm {
    private static final String MAIN = "io.walsink.bench.paimon.PaimonQ1";

    /** One requested run: {@code sink} is {@code paimon} or {@code blackhole}. */
    record Request(String name, String sink, int buckets, Q1Rows rows) {}

    /**
     * One run's result; for Paimon, what its table held after the run (rows, distinct keys, sum
     * of v1); -1 for blackhole.
     */
    record Result(
            String name,
            String sink,
            int buckets,
            long rows,
            long netMillis,
            long tableRows,
            long tableKeys,
            long sumV1) {
        double rowsPerSecond() {
            return rows / (netMillis / 1e3);
        }
    }

    private final Path module;
    private final String heap;

    /** {@code module}: the paimon-reference module's folder, empty for the one beside this module's build. */
    PaimonJvm(String module, String heap) {
        this.module = module.isEmpty() ? besideThisBuild() : Path.of(module);
        this.heap = heap;
    }

    /** Runs {@code requests} in order in one new JVM; fails when it does or a result is missing. */
    List<Result> run(List<Request> requests, int parallelism, long checkpointMillis, boolean finalCheckpoint)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("paimon-jvm-");
        try {
            Path spec = dir.resolve("runs.properties");
            writeSpec(spec, requests, parallelism, checkpointMillis, finalCheckpoint);
            // Pre-touched like the runner's other child JVMs, so no timed run pays a growing heap's first touches.
            List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xms" + heap,
                    "-Xmx" + heap,
                    "-XX:+AlwaysPreTouch",
                    "-cp",
                    classpath(),
                    MAIN,
                    spec.toString());
            List<Result> results = ChildJvm.run(command, Map.of(), line -> {}).stream()
                    .map(PaimonJvm::parse)
                    .toList();
            if (results.size() != requests.size()) {
                throw new IOException("the Paimon JVM reported " + results.size() + " of " + requests.size() + " runs");
            }
            return results;
        } finally {
            LocalShardTable.deleteRecursively(dir);
        }
    }

    private static void writeSpec(
            Path spec, List<Request> requests, int parallelism, long checkpointMillis, boolean finalCheckpoint)
            throws IOException {
        Properties p = new Properties();
        p.setProperty("columns", Q1Rows.columnsDdl());
        p.setProperty("parallelism", Integer.toString(parallelism));
        p.setProperty("checkpoint-ms", Long.toString(checkpointMillis));
        p.setProperty("final-checkpoint", Boolean.toString(finalCheckpoint));
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            String run = "run." + i + ".";
            p.setProperty(run + "name", r.name());
            p.setProperty(run + "sink", r.sink());
            p.setProperty(run + "buckets", Integer.toString(r.buckets()));
            p.setProperty(run + "rows", Long.toString(r.rows().rows));
            p.setProperty(run + "source", Q1Pipelines.datagenSourceDdl(r.rows()));
            p.setProperty(run + "select", r.rows().selectList());
            // Only a table needs the final checkpoint (Paimon commits on it); blackhole runs without,
            // since with it Flink's datagen -> blackhole ran at 0.23-1.57 M rows/s, round to round.
            p.setProperty(
                    run + "final-checkpoint",
                    Boolean.toString(finalCheckpoint && !r.sink().equals("blackhole")));
        }
        try (Writer w = Files.newBufferedWriter(spec)) {
            p.store(w, "q1-shaped runs for the Paimon reference");
        }
    }

    /** A result line without {@link ChildJvm#RESULT}: "name sink buckets rows net-ms [table-rows table-keys sum-v1]". */
    static Result parse(String line) {
        String[] f = line.split(" ");
        boolean table = f.length == 8;
        if (!table && f.length != 5) {
            throw new IllegalArgumentException("not a result line of the Paimon JVM: " + line);
        }
        return new Result(
                f[0],
                f[1],
                Integer.parseInt(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                table ? Long.parseLong(f[5]) : -1,
                table ? Long.parseLong(f[6]) : -1,
                table ? number(f[7]) : -1);
    }

    /** SUM over an empty table is NULL. */
    private static long number(String field) {
        return field.equals("null") ? 0 : Long.parseLong(field);
    }

    /** The module's classes, then its runtime dependencies as its build wrote them. */
    private String classpath() throws IOException {
        Path classes = module.resolve("target/classes");
        Path dependencies = module.resolve("target/classpath.txt");
        if (!Files.isDirectory(classes) || !Files.isRegularFile(dependencies)) {
            throw new IOException("no build of the Paimon reference at " + module
                    + " (build it with: mvn -B -o -pl flink-walsink-benchmarks -am package)");
        }
        return classes + File.pathSeparator + Files.readString(dependencies).trim();
    }

    /** This module's target/classes or target/benchmarks.jar, two levels below the module's folder. */
    private static Path besideThisBuild() {
        try {
            Path built = Path.of(PaimonJvm.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return built.getParent().getParent().resolve("paimon-reference");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
