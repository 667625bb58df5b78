package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.MaintainedIndex;
import io.walsink.read.NearestQuery;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.testing.Compactions;
import io.walsink.testing.LanceCoreSearch;
import io.walsink.testing.LanceDbSearch;
import io.walsink.testing.Vectors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Recall@10 of vector searches over a walsink table with a maintained IVF_HNSW_SQ index, and again
 * with an IVF_FLAT one, on the sink's default maintenance (compaction, file compaction and garbage collection in the job):
 * random 128-d vectors, merged into the base table (its trained index), then a tenth rewritten and
 * a tenth added (the SSTables' own indexes, and the base index after the job's merges). LanceDB's
 * default search (its LSM read, default options) is measured against exact search over the model,
 * lance-core 7.0.0's indexed search of the base table against its exact search of the same table,
 * and walsink's {@code TableReader.nearest} against the model. The build runs 10,000 rows; the full 100,000 run with {@code
 * -Dwalsink.recall.rows=100000}.
 */
class LanceDbRecallTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 128;
    private static final int K = 10;
    private static final int QUERIES = 50;
    private static final double GOAL = 0.9;
    /**
     * The base index's IVF partitions. LanceDB's LSM search takes no query options (ef, nprobes,
     * refine factor): it searches each probed partition's HNSW graph with Lance's default breadth,
     * 1.5 k, which finds 0.7-0.75 of the ten nearest random 128-d vectors in a single graph of 10,000
     * (measured here with 1 partition); several smaller graphs, all probed, find more.
     */
    private static final int PARTITIONS = Integer.getInteger("walsink.recall.partitions", 8);
    /** HNSW's search breadth for lance-core's search, which takes it (its default is 1.5 k too). */
    private static final int EF = Integer.getInteger("walsink.recall.ef", 100);

    private static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), new ArrayType(new FloatType(false))}, new String[] {"id", "emb"});

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    /** An IVF_FLAT base index is what gives LanceDB's default search its recall at 100,000 rows (benchmarks.md). */
    @ParameterizedTest
    @EnumSource(
            value = MaintainedIndex.Type.class,
            names = {"IVF_HNSW_SQ", "IVF_FLAT"})
    void recallAtTenIsAtLeastNinetyPercentForLanceDbAndLanceCore(MaintainedIndex.Type type) throws Exception {
        int rows = Integer.getInteger("walsink.recall.rows", 10_000);
        long seed = Long.getLong("walsink.recall.seed", System.nanoTime());
        System.out.println("LanceDbRecallTest seed " + seed + ", " + rows + " rows, " + type);
        Random random = new Random(seed);
        Path table = dir.resolve("recall");
        MaintainedIndex index = new MaintainedIndex("emb_idx", "emb", type, MaintainedIndex.Metric.L2, PARTITIONS, 0);
        Map<Long, float[]> model = new TreeMap<>();
        List<RowData> first = new ArrayList<>();
        for (long id = 0; id < rows; id++) {
            first.add(row(model, id, Vectors.gaussian(random, DIMENSION)));
        }
        VectorTableJob.of(ROW, DIMENSION).index(index).checkpointEvery(500).write(table, first);
        Compactions.once(table);
        List<RowData> later = new ArrayList<>();
        for (long id = rows - rows / 10; id < rows + rows / 10; id++) {
            later.add(row(model, id, Vectors.gaussian(random, DIMENSION)));
        }
        VectorTableJob.of(ROW, DIMENSION).index(index).checkpointEvery(500).write(table, later);
        List<float[]> queries = new ArrayList<>();
        for (int q = 0; q < QUERIES; q++) {
            queries.add(Vectors.gaussian(random, DIMENSION));
        }

        List<List<Long>> lanceDb = new ArrayList<>();
        for (List<LanceDbSearch.Hit> hits : LanceDbSearch.nearest(table, "emb", queries, K, null)) {
            lanceDb.add(LanceDbSearch.ids(hits));
        }
        List<List<Long>> exact = new ArrayList<>();
        for (float[] query : queries) {
            exact.add(exact(model, query));
        }
        double lanceDbRecall = recall(lanceDb, exact);
        List<List<Long>> baseIndexed = LanceCoreSearch.nearest(table, "emb", queries, K, EF);
        List<List<Long>> baseExact = LanceCoreSearch.nearest(table, "emb", queries, K, 0);
        double baseRecall = recall(baseIndexed, baseExact);
        List<List<Long>> walsink = new ArrayList<>();
        try (TableReader reader = TableReader.open(table.toString())) {
            for (float[] query : queries) {
                walsink.add(reader
                        .nearest(
                                ReadMode.COMMITTED,
                                NearestQuery.of("emb", query, K).withEf(EF))
                        .stream()
                        .map(n -> (Long) n.row().get("id"))
                        .toList());
            }
        }
        double walsinkRecall = recall(walsink, exact);
        System.out.printf(
                "LanceDbRecallTest: recall@%d over %d queries, %d rows, " + type + ": LanceDB default search %.3f,"
                        + " lance-core indexed search of the base table %.3f, walsink's reader (ef %d) %.3f%n",
                K,
                QUERIES,
                rows,
                lanceDbRecall,
                baseRecall,
                EF,
                walsinkRecall);

        assertThat(lanceDbRecall).as("LanceDB recall@%d, seed %s", K, seed).isGreaterThanOrEqualTo(GOAL);
        assertThat(walsinkRecall)
                .as("walsink's reader recall@%d against exact search over the model, seed %s", K, seed)
                .isGreaterThanOrEqualTo(GOAL);
        assertThat(baseRecall)
                .as("lance-core recall@%d of the base table's index, seed %s", K, seed)
                .isGreaterThanOrEqualTo(GOAL);
    }

    private static RowData row(Map<Long, float[]> model, long id, float[] vector) {
        model.put(id, vector);
        return GenericRowData.of(id, new GenericArrayData(vector));
    }

    /** The fraction of the exact answers' keys the searches found. */
    private static double recall(List<List<Long>> found, List<List<Long>> exact) {
        int hits = 0;
        int wanted = 0;
        for (int q = 0; q < exact.size(); q++) {
            Set<Long> want = new HashSet<>(exact.get(q));
            wanted += want.size();
            hits += (int) found.get(q).stream().filter(want::contains).count();
        }
        return hits / (double) wanted;
    }

    private static List<Long> exact(Map<Long, float[]> model, float[] query) {
        return model.entrySet().stream()
                .sorted(Comparator.comparingDouble(e -> Vectors.squaredDistance(e.getValue(), query)))
                .limit(K)
                .map(Map.Entry::getKey)
                .toList();
    }
}
