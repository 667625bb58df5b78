package io.walsink.bench.read;

import io.walsink.bench.support.Figures;
import io.walsink.bench.support.ProcessCpu;
import io.walsink.bench.support.TextTable;
import io.walsink.format.table.LanceTables;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A bounded scan of a walsink table ({@link LookupTable}: every key in the Lance base table, some
 * of them updated in unmerged SSTables above it) beside lance-core's own scan of the same base
 * table, for each table size given: rows/s, MB/s (Arrow bytes of the base table's rows) and the
 * ratio, and the process's peak heap and peak resident memory during each scan, so that memory
 * can be compared across sizes. walsink's scan is a batch SQL job ({@code SELECT COUNT(*),
 * SUM(CHAR_LENGTH(name))}, so every row and the string column are read) net of the same job over
 * a one-row table (planning, start-up); its count is checked against the table's keys. A third
 * reference, the Flink ceiling, runs the same job over {@link InMemoryRows} (as many rows of
 * prebuilt {@code RowData}, names as long as the table's, net of the same baseline): what that job
 * costs when reading costs next to nothing, so the best any Flink source could do in it.
 */
public final class ScanReport {
    public record Settings(List<Long> rows, int buckets, double updatedShare, int sstables, int parallelism) {}

    /** What a scan is: the one measured, or one of the two references it is compared with. */
    enum Kind {
        LANCE_CORE("lance-core scan of the base table"),
        FLINK_CEILING("Flink ceiling: same job over in-memory rows"),
        WALSINK("walsink SQL scan (base + SSTables)");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One scan of one table; {@code baselineNanos} is 0 for lance-core's. */
    record Outcome(
            Kind kind,
            long rows,
            long arrowBytes,
            long nanos,
            long baselineNanos,
            long cpuNanos,
            long baselineCpuNanos,
            long peakHeap,
            long peakRssGrowth) {
        double seconds() {
            return (nanos - baselineNanos) / 1e9;
        }

        /** Process CPU seconds (all threads, native ones included), net of the baseline's: less load-bound than seconds. */
        double cpuSeconds() {
            return (cpuNanos - baselineCpuNanos) / 1e9;
        }

        double rowsPerSecond() {
            return seconds() <= 0 ? Double.NaN : rows / seconds();
        }

        double megabytesPerSecond() {
            return seconds() <= 0 ? Double.NaN : arrowBytes / 1e6 / seconds();
        }
    }

    private ScanReport() {}

    public static List<Outcome> run(Path dir, Settings s) throws Exception {
        List<Outcome> outcomes = new ArrayList<>();
        for (long rows : s.rows()) {
            Path table = dir.resolve("table-" + rows);
            long updates = Math.max(1, (long) (rows * s.updatedShare()));
            LookupTable.build(table, rows, s.buckets(), updates, s.sstables());
            System.err.println("table of " + rows + " keys built");
            Outcome lance = lanceCore(table, rows);
            outcomes.add(lance);
            outcomes.addAll(sqlScans(table, rows, lance.arrowBytes(), s.parallelism()));
        }
        return outcomes;
    }

    private static Outcome lanceCore(Path table, long expectedRows) throws IOException {
        PeakMemory peak = PeakMemory.start();
        long rows = 0;
        long bytes = 0;
        long cpuStart = ProcessCpu.nanos();
        long start = System.nanoTime();
        try (BufferAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, table.toString(), Map.of());
                LanceScanner scanner = LanceScanner.create(
                        base,
                        new ScanOptions.Builder().columns(List.of("id", "name")).build(),
                        allocator);
                ArrowReader batches = scanner.scanBatches()) {
            while (batches.loadNextBatch()) {
                VectorSchemaRoot batch = batches.getVectorSchemaRoot();
                rows += batch.getRowCount();
                for (FieldVector v : batch.getFieldVectors()) {
                    bytes += v.getBufferSize();
                }
            }
        } catch (Exception e) {
            throw new IOException("lance-core scan of " + table, e);
        }
        long nanos = System.nanoTime() - start;
        long cpu = ProcessCpu.nanos() - cpuStart;
        check("lance-core", rows, expectedRows);
        return new Outcome(Kind.LANCE_CORE, rows, bytes, nanos, 0, cpu, 0, peak.heap(), peak.rssGrowth());
    }

    /** The Flink ceiling, then walsink's scan: the same SQL job, in one environment, net of one baseline. */
    private static List<Outcome> sqlScans(Path table, long expectedRows, long arrowBytes, int parallelism)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode());
        sql.getConfig().set("parallelism.default", String.valueOf(parallelism));
        env.setParallelism(parallelism);
        sql.executeSql("CREATE TABLE t (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' ="
                + " 'walsink', 'path' = '" + table + "')");
        sql.executeSql("CREATE TABLE one_row (id BIGINT, name STRING) WITH ('connector' = 'datagen',"
                + " 'number-of-rows' = '1')");
        sql.createTemporaryView("in_memory", sql.fromDataStream(InMemoryRows.stream(env, expectedRows)));
        // The first job of a JVM also loads and compiles the job's classes: the second is the baseline.
        timedCount(sql, "one_row");
        long[] baseline = timedCount(sql, "one_row");
        List<Outcome> outcomes = new ArrayList<>();
        for (Kind kind : List.of(Kind.FLINK_CEILING, Kind.WALSINK)) {
            PeakMemory peak = PeakMemory.start();
            long[] scan = timedCount(sql, kind == Kind.WALSINK ? "t" : "in_memory");
            check(kind.label, scan[1], expectedRows);
            outcomes.add(new Outcome(
                    kind,
                    scan[1],
                    arrowBytes,
                    scan[0],
                    baseline[0],
                    scan[2],
                    baseline[2],
                    peak.heap(),
                    peak.rssGrowth()));
        }
        return outcomes;
    }

    /** @return nanoseconds, the rows counted, and the process's CPU nanoseconds meanwhile */
    private static long[] timedCount(StreamTableEnvironment sql, String table) throws Exception {
        long cpuStart = ProcessCpu.nanos();
        long start = System.nanoTime();
        try (CloseableIterator<Row> result = sql.executeSql("SELECT COUNT(*), SUM(CHAR_LENGTH(name)) FROM " + table)
                .collect()) {
            Row row = result.next();
            long nanos = System.nanoTime() - start;
            while (result.hasNext()) { // to the job's end, so that closing finds nothing to cancel
                result.next();
            }
            return new long[] {nanos, (Long) row.getField(0), ProcessCpu.nanos() - cpuStart};
        }
    }

    private static void check(String reader, long rows, long expected) {
        if (rows != expected) {
            throw new IllegalStateException(reader + " read " + rows + " rows of a table of " + expected + " keys");
        }
    }

    public static String render(Settings s, List<Outcome> outcomes) {
        TextTable table = new TextTable(
                "keys",
                "path",
                "rows",
                "s",
                "CPU s",
                "rows/s",
                "MB/s",
                "walsink / lance-core",
                "walsink / ceiling",
                "peak heap MB",
                "peak RSS +MB");
        Map<Kind, Outcome> latest = new EnumMap<>(Kind.class); // the references of the size being shown
        for (Outcome o : outcomes) {
            latest.put(o.kind(), o);
            boolean measured = o.kind() == Kind.WALSINK;
            table.row(
                    Figures.count(o.rows()),
                    o.kind().label,
                    Figures.count(o.rows()),
                    String.format("%.2f", o.seconds()),
                    String.format("%.2f", o.cpuSeconds()),
                    Figures.number(o.rowsPerSecond()),
                    String.format("%.0f", o.megabytesPerSecond()),
                    measured ? ratio(o, latest.get(Kind.LANCE_CORE)) : "-",
                    measured ? ratio(o, latest.get(Kind.FLINK_CEILING)) : "-",
                    o.peakHeap() >> 20,
                    o.peakRssGrowth() < 0 ? "n/a" : String.valueOf(o.peakRssGrowth() >> 20));
        }
        return "Bounded scans: " + s.buckets() + " buckets, " + s.updatedShare() + " of the keys updated in "
                + s.sstables() + " unmerged SSTables per shard, SQL scan parallelism " + s.parallelism()
                + "; the SQL jobs' times (wall and process CPU) are net of the same job over a one-row table; MB/s: Arrow bytes of the"
                + " base table's rows; the ceiling is the same SQL job over prebuilt in-memory rows (as many, names as"
                + " long);"
                + " goal walsink / lance-core >= 0.8x, memory independent of the size\n"
                + table.render();
    }

    private static String ratio(Outcome measured, Outcome reference) {
        return reference == null ? "-" : Figures.ratio(measured.rowsPerSecond() / reference.rowsPerSecond());
    }

    /** The process's heap and resident-memory peaks from now on (Linux: VmHWM, reset through clear_refs). */
    record PeakMemory(long rssBefore) {
        static PeakMemory start() {
            System.gc();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            long rss = -1;
            try {
                Files.writeString(Path.of("/proc/self/clear_refs"), "5"); // resets VmHWM to the current RSS
                rss = status("VmHWM:");
            } catch (IOException | RuntimeException e) {
                // not Linux, or not allowed: the RSS column says n/a
            }
            return new PeakMemory(rss);
        }

        long heap() {
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            return peak;
        }

        long rssGrowth() {
            if (rssBefore < 0) {
                return -1;
            }
            try {
                return status("VmHWM:") - rssBefore;
            } catch (IOException e) {
                return -1;
            }
        }

        private static long status(String field) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
                }
            }
            throw new IOException(field + " not in /proc/self/status");
        }
    }
}
