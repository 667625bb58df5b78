package io.walsink.bench.jobs;

import io.walsink.bench.support.Percentiles;
import io.walsink.bench.support.TextTable;
import io.walsink.flink.WalSink;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.storage.LocalObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Not a timing benchmark: a long job on a local cluster at a steady rate, with checkpoints,
 * {@code sink.memtable.max-age}, compaction and garbage collection on, while a reader of published
 * data polls the table. Reports how long each change took to become visible to that reader, how
 * many SSTables a shard lists, and how many bytes the table folder holds per byte of live rows.
 */
public final class MaintenanceRun {
    private static final RowType ROW =
            RowType.of(new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "name"});

    /** When each change left the source (the local cluster runs in this JVM). */
    private static long[] emittedAt;

    private static int keys;
    private static String padding;

    private MaintenanceRun() {}

    /** The run's shape: how long, how fast, how wide, and the sink's maintenance settings. */
    public record Settings(
            int seconds,
            int rate,
            int keys,
            int valueBytes,
            int buckets,
            long checkpointMillis,
            long maxAgeMillis,
            long retentionSeconds,
            long maintenanceSeconds) {}

    /** Runs the job to its end while the reader polls; returns the table of what the reader saw. */
    public static String run(Settings settings) throws Exception {
        int seconds = settings.seconds();
        int rate = settings.rate();
        keys = settings.keys();
        padding = "x".repeat(settings.valueBytes());
        int buckets = settings.buckets();
        long checkpointMillis = settings.checkpointMillis();
        long maxAgeMillis = settings.maxAgeMillis();
        long retentionSeconds = settings.retentionSeconds();
        long maintenanceSeconds = settings.maintenanceSeconds();
        long rows = (long) seconds * rate;
        emittedAt = new long[(int) rows];
        Path table = Files.createTempDirectory("walsink-maintenance-").resolve("table");

        AtomicBoolean done = new AtomicBoolean();
        long[] seenSeq = new long[keys];
        Arrays.fill(seenSeq, -1);
        List<Long> lags = new ArrayList<>();
        AtomicInteger polls = new AtomicInteger();
        int[] maxSsTables = {0};
        Thread reader = new Thread(
                () -> {
                    while (!done.get()) {
                        pollOnce(table, seenSeq, lags);
                        maxSsTables[0] = Math.max(maxSsTables[0], maxSsTablesPerShard(table));
                        polls.incrementAndGet();
                    }
                },
                "committed reader");

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(i -> i, rows, RateLimiterStrategy.perSecond(rate), Types.LONG);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .setParallelism(1)
                .map(MaintenanceRun::change)
                .returns(InternalTypeInfo.of(ROW))
                .setParallelism(1)
                .sinkTo(WalSink.forRowData(ROW)
                        .path(table.toString())
                        .primaryKey("id")
                        .createTableIfMissing(buckets)
                        .memtableMaxAge(Duration.ofMillis(maxAgeMillis))
                        .compaction(true)
                        .garbageCollection(true, Duration.ofSeconds(retentionSeconds))
                        .maintenanceInterval(Duration.ofSeconds(maintenanceSeconds))
                        .build());
        reader.start();
        try {
            env.execute("walsink maintenance run");
        } finally {
            done.set(true);
            reader.join();
        }
        pollOnce(table, seenSeq, lags); // the last checkpoint's rows

        long stored = folderBytes(table);
        long live = liveRowBytes(table);
        long[] sorted = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        String header = String.format(
                "maintenance run: %d s at %d changes/s over %d keys (%d-byte values), %d buckets, %d ms checkpoints,"
                        + " max age %d ms, compaction + garbage collection every %d s (retention %d s)%n",
                seconds,
                rate,
                keys,
                padding.length(),
                buckets,
                checkpointMillis,
                maxAgeMillis,
                maintenanceSeconds,
                retentionSeconds);
        TextTable out = new TextTable("measure", "value");
        out.row("changes seen by the reader", String.format("%,d of %,d (%d reads)", sorted.length, rows, polls.get()));
        out.row(
                "visibility lag p50 / p90 / p99 / max (ms)",
                String.format(
                        "%d / %d / %d / %d",
                        Percentiles.of(sorted, 50),
                        Percentiles.of(sorted, 90),
                        Percentiles.of(sorted, 99),
                        Percentiles.of(sorted, 100)));
        out.row(
                "SSTables per shard: most during the run / at the end",
                maxSsTables[0] + " / " + maxSsTablesPerShard(table));
        out.row("table folder bytes", String.format("%,d", stored));
        out.row("live row bytes (8 B key + 4 B offset + value)", String.format("%,d", live));
        out.row("storage amplification", String.format("%.2f", (double) stored / live));
        return header + out.render();
    }

    private static RowData change(long seq) {
        emittedAt[(int) seq] = System.currentTimeMillis();
        return GenericRowData.of(seq % keys, StringData.fromString("v" + seq + " " + padding));
    }

    /** Records, for every change that became visible since the last read, how long it took. */
    private static void pollOnce(Path table, long[] seenSeq, List<Long> lags) {
        long now = System.currentTimeMillis();
        try (TableReader reader = TableReader.open(table.toString())) {
            for (Map<String, Object> row : reader.read(ReadMode.COMMITTED).rows()) {
                int key = (int) (long) (Long) row.get("id");
                String name = (String) row.get("name");
                long seq = Long.parseLong(name.substring(1, name.indexOf(' ')));
                long first = seenSeq[key] < 0 ? key : seenSeq[key] + keys;
                for (long s = first; s <= seq; s += keys) { // this change and the older ones it superseded
                    if (emittedAt[(int) s] > 0) {
                        lags.add(now - emittedAt[(int) s]);
                    }
                }
                seenSeq[key] = Math.max(seenSeq[key], seq);
            }
        } catch (RuntimeException notThereYet) {
            // the table appears when the job is built; a read racing its creation is retried
        }
    }

    private static int maxSsTablesPerShard(Path table) {
        if (!Files.isDirectory(table)) {
            return 0;
        }
        LocalObjectStore store = new LocalObjectStore(table);
        int max = 0;
        try {
            for (UUID shard : TableLayout.shards(store)) {
                int n = new ManifestStore(store, shard)
                        .readLatest()
                        .map(ShardManifest::sstables)
                        .map(List::size)
                        .orElse(0);
                max = Math.max(max, n);
            }
        } catch (RuntimeException e) {
            return max;
        }
        return max;
    }

    private static long folderBytes(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static long liveRowBytes(Path table) {
        try (TableReader reader = TableReader.open(table.toString())) {
            return reader.read(ReadMode.COMMITTED).rows().stream()
                    .mapToLong(r -> 12 + ((String) r.get("name")).getBytes(StandardCharsets.UTF_8).length)
                    .sum();
        }
    }
}
