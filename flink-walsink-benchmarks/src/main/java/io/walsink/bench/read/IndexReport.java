package io.walsink.bench.read;

import io.walsink.bench.support.TextTable;
import io.walsink.flink.WalSink;
import io.walsink.flink.WalSinkBuilder;
import io.walsink.format.table.IndexBuilds;
import io.walsink.format.table.MaintainedIndex;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * What maintained indexes cost: the sink's rate with 0, 1 and 3 maintained indexes
 * (an IVF_PQ on the vector; plus a BTREE on the key and an INVERTED index on the text), each a job
 * writing a new table to its end (every SSTable then carries its indexes); and the time to index
 * one SSTable's rows the way walsink does (IVF_FLAT, one partition) beside lance-core building
 * the declared IVF_PQ on the same rows.
 */
public final class IndexReport {
    public record Settings(
            int rows,
            int dimension,
            int buckets,
            int sstableRows,
            int partitions,
            int subVectors,
            int rounds,
            long seed) {
        MaintainedIndex vectorIndex() {
            return MaintainedIndex.ivfPq("emb_idx", "emb", partitions, subVectors);
        }

        List<List<MaintainedIndex>> indexSets() {
            return List.of(
                    List.of(),
                    List.of(vectorIndex()),
                    List.of(
                            vectorIndex(),
                            MaintainedIndex.scalar("id_idx", "id", MaintainedIndex.Type.BTREE),
                            MaintainedIndex.scalar("text_idx", "text", MaintainedIndex.Type.INVERTED)));
        }
    }

    /** One sink job: its maintained indexes and its net runtime. */
    record SinkRun(List<String> indexes, long rows, long nanos) {
        double rowsPerSecond() {
            return rows * 1e9 / nanos;
        }
    }

    /** The build times of one SSTable's index, walsink's way and lance-core's declared type. */
    record BuildRun(long sstableRows, List<Long> walsinkNanos, List<Long> lanceCoreNanos) {}

    /**
     * One sink job per index set, then the index builds, each in a folder under {@code dir};
     * {@code progress} hears each job's rate as it ends, since the whole takes minutes.
     */
    public static String report(Settings s, Path dir, Consumer<String> progress) throws Exception {
        List<SinkRun> sinks = new ArrayList<>();
        for (List<MaintainedIndex> indexes : s.indexSets()) {
            SinkRun run = sink(s, indexes, dir.resolve("sink-" + indexes.size()));
            progress.accept(String.format(
                    "  sink with %d maintained indexes: %.0f rows/s%n", indexes.size(), run.rowsPerSecond()));
            sinks.add(run);
        }
        BuildRun builds = builds(s, dir.resolve("builds"));
        return render(s, sinks, builds);
    }

    /** Writes {@code s.rows()} rows into a new table at {@code table} with {@code indexes} maintained. */
    static SinkRun sink(Settings s, List<MaintainedIndex> indexes, Path table) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(Math.min(2, s.buckets()));
        env.enableCheckpointing(1_000);
        RowType type = rowType();
        int dimension = s.dimension();
        long seed = s.seed();
        GeneratorFunction<Long, RowData> rows = index -> row(index, dimension, seed);
        WalSinkBuilder<RowData> sink = WalSink.forRowData(type)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(s.buckets())
                .vectorColumn("emb", dimension);
        indexes.forEach(sink::maintainedIndex);
        env.fromSource(
                        new DataGeneratorSource<>(rows, s.rows(), InternalTypeInfo.of(type)),
                        WatermarkStrategy.noWatermarks(),
                        "vectors")
                .sinkTo(sink.build());
        JobExecutionResult result = env.execute("index report, " + indexes.size() + " indexes");
        return new SinkRun(
                indexes.stream().map(i -> i.name() + " " + i.type()).toList(),
                s.rows(),
                TimeUnit.MILLISECONDS.toNanos(result.getNetRuntime(TimeUnit.MILLISECONDS)));
    }

    /** Times both index builds on an SSTable-shaped dataset of {@code s.sstableRows()} rows, {@code s.rounds()} times. */
    static BuildRun builds(Settings s, Path folder) throws Exception {
        List<Long> walsink = new ArrayList<>();
        List<Long> lanceCore = new ArrayList<>();
        MaintainedIndex declared = s.vectorIndex();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int round = 0; round < s.rounds(); round++) {
                try (Dataset sstable = writeRows(allocator, s, folder.resolve("walsink-" + round))) {
                    long started = System.nanoTime();
                    IndexBuilds.buildOnGeneration(sstable, List.of(declared));
                    walsink.add(System.nanoTime() - started);
                }
                try (Dataset sstable = writeRows(allocator, s, folder.resolve("lance-core-" + round))) {
                    long started = System.nanoTime();
                    IndexBuilds.createOnBase(sstable, declared);
                    lanceCore.add(System.nanoTime() - started);
                }
            }
        }
        return new BuildRun(s.sstableRows(), walsink, lanceCore);
    }

    static String render(Settings s, List<SinkRun> sinks, BuildRun builds) {
        TextTable sinkTable = new TextTable("maintained indexes", "rows/s", "vs none");
        double none = sinks.get(0).rowsPerSecond();
        for (SinkRun run : sinks) {
            sinkTable.row(
                    run.indexes().isEmpty() ? "none" : String.join(", ", run.indexes()),
                    String.format("%.0f", run.rowsPerSecond()),
                    String.format("%.2fx", run.rowsPerSecond() / none));
        }
        TextTable buildTable = new TextTable(
                "index of one SSTable (" + builds.sstableRows() + " rows)", "median ms", "all rounds, ms");
        buildTable.row(
                "walsink: IVF_FLAT, one partition (what every SSTable gets)",
                String.valueOf(medianMillis(builds.walsinkNanos())),
                millis(builds.walsinkNanos()));
        buildTable.row(
                "lance-core: the declared IVF_PQ (" + s.partitions() + " partitions, " + s.subVectors()
                        + " sub-vectors)",
                String.valueOf(medianMillis(builds.lanceCoreNanos())),
                millis(builds.lanceCoreNanos()));
        return "Sink rate, " + s.rows() + " rows of " + s.dimension() + "-d vectors, " + s.buckets() + " buckets, seed "
                + s.seed() + "\n" + sinkTable.render() + "\n" + buildTable.render();
    }

    static RowType rowType() {
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new ArrayType(new FloatType(false))
                },
                new String[] {"id", "text", "emb"});
    }

    /** Row {@code index}: the same key, text and vector for the same seed in every run. */
    static RowData row(long index, int dimension, long seed) {
        return GenericRowData.of(
                index, StringData.fromString(text(index)), new GenericArrayData(vector(index, dimension, seed)));
    }

    private static String text(long index) {
        return "word" + (index % 50) + " document " + index;
    }

    private static float[] vector(long index, int dimension, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        float[] v = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            v[i] = (float) random.nextDouble(-1, 1);
        }
        return v;
    }

    /** A one-fragment dataset of the SSTable's columns (no tombstones: the index cost is the vectors'). */
    private static Dataset writeRows(BufferAllocator allocator, Settings s, Path uri) throws Exception {
        Schema schema = new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("text", ArrowType.Utf8.INSTANCE),
                new Field(
                        "emb",
                        FieldType.nullable(new ArrowType.FixedSizeList(s.dimension())),
                        List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));
        try (ArrowReader rows = new GeneratedRows(allocator, schema, s)) {
            return Dataset.write()
                    .allocator(allocator)
                    .reader(rows)
                    .uri(uri.toString())
                    .mode(WriteParams.WriteMode.CREATE)
                    .maxRowsPerFile(Integer.MAX_VALUE)
                    .execute();
        }
    }

    /** The benchmark's rows as Arrow batches of 1,024. */
    private static final class GeneratedRows extends ArrowReader {
        private final Schema schema;
        private final Settings s;
        private long next;

        GeneratedRows(BufferAllocator allocator, Schema schema, Settings s) {
            super(allocator);
            this.schema = schema;
            this.s = s;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            int n = (int) Math.min(1_024, s.sstableRows() - next);
            if (n <= 0) {
                return false;
            }
            VectorSchemaRoot root = getVectorSchemaRoot();
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector text = (VarCharVector) root.getVector("text");
            FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
            Float4Vector items = (Float4Vector) emb.getDataVector();
            for (int row = 0; row < n; row++) {
                long index = next + row;
                id.setSafe(row, index);
                text.setSafe(row, text(index).getBytes(StandardCharsets.UTF_8));
                emb.setNotNull(row);
                float[] v = vector(index, s.dimension(), s.seed());
                for (int d = 0; d < v.length; d++) {
                    items.setSafe(row * v.length + d, v[d]);
                }
            }
            items.setValueCount(n * s.dimension());
            root.setRowCount(n);
            next += n;
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {}

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }

    private static long medianMillis(List<Long> nanos) {
        List<Long> sorted = nanos.stream().sorted().toList();
        return sorted.get(sorted.size() / 2) / 1_000_000;
    }

    private static String millis(List<Long> nanos) {
        return String.join(
                ", ", nanos.stream().map(n -> String.valueOf(n / 1_000_000)).toList());
    }
}
