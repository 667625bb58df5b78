package io.walsink.bench.read;

import io.walsink.bench.support.Percentiles;
import io.walsink.bench.support.TextTable;
import io.walsink.flink.WalSink;
import io.walsink.format.TableLayout;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.table.MergedGenerations;
import io.walsink.maintenance.Compactor;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.storage.LocalObjectStore;
import io.walsink.testing.LanceDbSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Vector query latency as SSTables pile up: LanceDB's default search (its LSM read of
 * the base table and every published SSTable, each with its own index) over a table with a
 * maintained IVF_HNSW_SQ, with 1, 10 and 50 SSTables beside the indexed base table, and again
 * after a compaction merged them. Each SSTable is one bounded job's last flush (one bucket, no
 * compaction in the job); the base table is a first job's rows merged by the compactor, which
 * also builds the base index. Each point runs the same seeded queries in one Node process, the
 * first few (table open, caches) left out of the percentiles.
 */
public final class VectorQueryReport {
    private static final int K = 10;

    public record Settings(
            int baseRows,
            int sstableRows,
            List<Long> sstables,
            int dimension,
            int partitions,
            MaintainedIndex.Type type,
            int queries,
            int warmup,
            long seed) {}

    /** One measured point: what the table held and the searches' times. */
    record Point(String table, long sstables, long[] sortedMicros) {
        long percentile(double p) {
            return Percentiles.of(sortedMicros, p);
        }
    }

    /** Builds the table step by step and measures each point. */
    public static List<Point> run(Settings s, Path table) throws Exception {
        List<Point> points = new ArrayList<>();
        write(s, table, key -> key, s.baseRows(), 0);
        Compactor.compact(table.toString(), null, CompactorOptions.defaults());
        long nextKey = s.baseRows();
        int job = 0;
        for (long wanted : s.sstables()) {
            while (sstables(table) < wanted) {
                // half rewrites of base keys (a different stretch each job), half new keys
                int rewrites = s.sstableRows() / 2;
                long rewritten = (long) job * rewrites % s.baseRows();
                long fresh = nextKey;
                int base = s.baseRows();
                write(
                        s,
                        table,
                        row -> row < rewrites ? (rewritten + row) % base : fresh + row - rewrites,
                        s.sstableRows(),
                        job + 1);
                nextKey += s.sstableRows() - rewrites;
                job++;
            }
            points.add(measure(s, table, "base table and SSTables"));
            System.out.printf(
                    "  %d SSTables: p50 %d us%n",
                    sstables(table), points.get(points.size() - 1).percentile(50));
        }
        Compactor.compact(table.toString(), null, CompactorOptions.defaults());
        points.add(measure(s, table, "after compaction"));
        return points;
    }

    private static Point measure(Settings s, Path table, String what) throws Exception {
        SplittableRandom random = new SplittableRandom(s.seed() + 1);
        List<float[]> queries = new ArrayList<>();
        for (int q = 0; q < s.warmup() + s.queries(); q++) {
            queries.add(vector(random, s.dimension()));
        }
        long held = sstables(table);
        LanceDbSearch.Timed timed = LanceDbSearch.timedNearest(table, "emb", queries, K, null);
        long[] micros = timed.millis().subList(s.warmup(), timed.millis().size()).stream()
                .mapToLong(ms -> Math.round(ms * 1000))
                .sorted()
                .toArray();
        for (List<LanceDbSearch.Hit> hits : timed.hits()) {
            if (hits.size() != K) {
                throw new IllegalStateException("LanceDB returned " + hits.size() + " of " + K + " rows");
            }
        }
        return new Point(what, held, micros);
    }

    /**
     * One bounded job writing {@code count} rows, row i with key {@code keys(i)} and a vector drawn
     * for that key and {@code job}; its end (the final checkpoint) publishes one SSTable.
     */
    static void write(Settings s, Path table, KeyOf keys, int count, int job) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(3_600_000); // only the final checkpoint, at the end of the input
        RowType type = RowType.of(
                new LogicalType[] {new BigIntType(false), new ArrayType(new FloatType(false))},
                new String[] {"id", "emb"});
        int dimension = s.dimension();
        long seed = s.seed();
        GeneratorFunction<Long, RowData> rows = i -> {
            long key = keys.of(i);
            SplittableRandom random = new SplittableRandom((seed * 0x9E3779B97F4A7C15L + key) * 31 + job);
            return GenericRowData.of(key, new GenericArrayData(vector(random, dimension)));
        };
        env.fromSource(
                        new DataGeneratorSource<>(rows, count, InternalTypeInfo.of(type)),
                        WatermarkStrategy.noWatermarks(),
                        "vectors")
                .sinkTo(WalSink.forRowData(type)
                        .path(table.toString())
                        .primaryKey("id")
                        .createTableIfMissing(1)
                        .vectorColumn("emb", dimension)
                        .maintainedIndex(index(s))
                        .compaction(false)
                        .build());
        env.execute("vector query report, job " + job);
    }

    /** Row number to key, for a job's generator (serializable: Flink ships it). */
    interface KeyOf extends java.io.Serializable {
        long of(long row);
    }

    /** The SSTables a reader merges: those the shards' latest manifests list and the base table has not merged. */
    static long sstables(Path table) {
        if (!Files.isDirectory(table.resolve("_mem_wal"))) {
            return 0;
        }
        LocalObjectStore store = new LocalObjectStore(table);
        Map<UUID, Long> merged;
        try (BufferAllocator allocator = new RootAllocator()) {
            merged = MergedGenerations.latest(allocator, table.toString(), Map.of());
        }
        long n = 0;
        for (UUID shard : TableLayout.shards(store)) {
            long through = merged.getOrDefault(shard, 0L);
            n += new ManifestStore(store, shard)
                    .readLatest()
                    .map(m -> m.sstables().stream()
                            .filter(t -> t.generation() > through)
                            .count())
                    .orElse(0L);
        }
        return n;
    }

    /** The maintained vector index the report's table declares. */
    static MaintainedIndex index(Settings s) {
        if (!s.type().isVector()) {
            throw new IllegalArgumentException("--type must be a vector index type, got " + s.type());
        }
        return new MaintainedIndex(
                "emb_idx",
                "emb",
                s.type(),
                MaintainedIndex.Metric.L2,
                s.partitions(),
                s.type() == MaintainedIndex.Type.IVF_PQ ? 16 : 0);
    }

    public static String render(Settings s, List<Point> points) {
        TextTable t = new TextTable("table", "SSTables", "p50 ms", "p99 ms", "searches");
        for (Point p : points) {
            t.row(
                    p.table(),
                    String.valueOf(p.sstables()),
                    String.format("%.1f", p.percentile(50) / 1000.0),
                    String.format("%.1f", p.percentile(99) / 1000.0),
                    String.valueOf(p.sortedMicros().length));
        }
        return "LanceDB default vector search (k = " + K + "), " + s.baseRows() + " base rows of " + s.dimension()
                + "-d vectors, " + s.type() + " with " + s.partitions() + " partitions maintained, SSTables of "
                + s.sstableRows() + " rows, seed " + s.seed() + "\n" + t.render();
    }

    private static float[] vector(SplittableRandom random, int dimension) {
        float[] v = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            v[i] = (float) random.nextDouble(-1, 1);
        }
        return v;
    }
}
