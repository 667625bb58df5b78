package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.MaintainedIndex;
import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.NearestQuery;
import io.walsink.read.Neighbour;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.read.search.VectorSearcher;
import io.walsink.read.snapshot.RowValues;
import io.walsink.read.snapshot.SnapshotReader;
import io.walsink.storage.S3Options;
import io.walsink.testing.Compactions;
import io.walsink.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
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
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TableReader#nearest} over a table with no vector index, where lance-core searches the base
 * table exactly: the answers must be exactly the model's nearest live rows, for each metric, while
 * the base's nearest rows were updated away or deleted in SSTables above it (so base answers are
 * dropped and the base searched again for more) and fresh rows sit near the queries. The i-th
 * answer is the model's i-th nearest row, or a row tied with it within float32 rounding.
 */
class NearestReadTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 16;
    private static final int ROWS = 3_000;
    private static final int K = 10;
    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new ArrayType(new FloatType(false))
            },
            new String[] {"id", "note", "emb"});

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void exactAnswersAreTheModelsNearestLiveRowsForEveryMetric() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("NearestReadTest seed " + seed);
        Random random = new Random(seed);
        Path table = dir.resolve("nearest");
        Map<Long, float[]> model = new TreeMap<>();
        List<RowData> first = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            first.add(upsert(model, id, Vectors.gaussian(random, DIMENSION)));
        }
        VectorTableJob.of(ROW, DIMENSION).write(table, first);
        Compactions.once(table); // the base table holds them all

        List<float[]> queries = new ArrayList<>();
        for (int q = 0; q < 12; q++) {
            queries.add(Vectors.gaussian(random, DIMENSION));
        }
        // Above the base: for the first half of the queries every one of the base's 2k nearest rows
        // is updated far away or deleted (the first base search finds no survivor); near every
        // query, two fresh rows.
        List<RowData> changes = new ArrayList<>();
        Set<Long> changed = new HashSet<>();
        for (int q = 0; q < queries.size() / 2; q++) {
            for (long key : exact(model, queries.get(q), MaintainedIndex.Metric.L2, 2 * K)) {
                if (changed.add(key)) {
                    if (key % 2 == 0) {
                        model.remove(key);
                        changes.add(GenericRowData.ofKind(RowKind.DELETE, key, null, null));
                    } else {
                        changes.add(upsert(model, key, far(random)));
                    }
                }
            }
        }
        long next = ROWS;
        for (float[] query : queries) {
            for (int i = 0; i < 2; i++) {
                changes.add(upsert(model, next++, near(random, query)));
            }
        }
        VectorTableJob.of(ROW, DIMENSION).compaction(false).write(table, changes); // stays above the base

        try (TableReader reader = TableReader.open(table.toString())) {
            for (MaintainedIndex.Metric metric : MaintainedIndex.Metric.values()) {
                for (int q = 0; q < queries.size(); q++) {
                    float[] query = queries.get(q);
                    List<Neighbour<Map<String, Object>>> found = reader.nearest(
                            ReadMode.COMMITTED, NearestQuery.of("emb", query, K).withMetric(metric));
                    List<Long> want = exact(model, query, metric, K);
                    List<Long> ids =
                            found.stream().map(n -> (Long) n.row().get("id")).toList();
                    assertThat(ids)
                            .as("%s query %d, seed %s", metric, q, seed)
                            .hasSize(K)
                            .doesNotHaveDuplicates();
                    for (int rank = 0; rank < K; rank++) {
                        long id = ids.get(rank);
                        assertThat(model)
                                .as("%s query %d: %d is live, seed %s", metric, q, id, seed)
                                .containsKey(id);
                        double nearest = distance(metric, model.get(want.get(rank)), query);
                        assertThat(distance(metric, model.get(id), query))
                                .as(
                                        "%s query %d, rank %d: %d where the model has %d (ids %s, want %s), seed %s",
                                        metric, q, rank, id, want.get(rank), ids, want, seed)
                                .isCloseTo(nearest, org.assertj.core.data.Offset.offset(tie(nearest)));
                    }
                    for (Neighbour<Map<String, Object>> n : found) {
                        long id = (Long) n.row().get("id");
                        assertThat(n.distance())
                                .as(
                                        "%s distance of %d (Lance's for base rows, walsink's above), seed %s",
                                        metric, id, seed)
                                .isCloseTo(
                                        distance(metric, model.get(id), query),
                                        org.assertj.core.data.Offset.offset(1e-3));
                        assertThat(n.row().get("note")).isEqualTo("row " + id);
                    }
                }
            }
            assertThat(changed).as("base rows shadowed by the SSTables").hasSizeGreaterThan(2 * K);
        }
    }

    @Test
    void aSearcherReadsTheTableAgainOnlyWhenACheckpointPublishedSomethingNew() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("NearestReadTest searcher seed " + seed);
        Random random = new Random(seed);
        Path table = dir.resolve("searcher");
        Map<Long, float[]> model = new TreeMap<>();
        List<RowData> first = new ArrayList<>();
        for (long id = 0; id < 200; id++) {
            first.add(upsert(model, id, Vectors.gaussian(random, DIMENSION)));
        }
        VectorTableJob.of(ROW, DIMENSION).write(table, first);
        float[] query = Vectors.gaussian(random, DIMENSION);
        try (SnapshotReader reader =
                        SnapshotReader.open(table.toString(), S3Options.defaults(), WalSchemaProfile.SPEC);
                VectorSearcher<Map<String, Object>> everyQuery =
                        new VectorSearcher<>(reader, "emb", RowValues.extractor(List.of("id")), Duration.ZERO);
                VectorSearcher<Map<String, Object>> hourly =
                        new VectorSearcher<>(reader, "emb", RowValues.extractor(List.of("id")), Duration.ofHours(1))) {
            NearestQuery nearest = NearestQuery.of("emb", query, 1);
            assertThat(everyQuery.nearest(nearest)).hasSize(1);
            assertThat(everyQuery.nearest(nearest)).hasSize(1);
            assertThat(hourly.nearest(nearest)).hasSize(1);
            assertThat(everyQuery.snapshotsRead())
                    .as("the same snapshot pinned twice is read once")
                    .isEqualTo(1);

            VectorTableJob.of(ROW, DIMENSION).compaction(false).write(table, List.of(upsert(model, 1000L, query)));
            assertThat(everyQuery.nearest(nearest).get(0).row())
                    .as("a row committed since the last query, seed %s", seed)
                    .isEqualTo(Map.of("id", 1000L));
            assertThat(everyQuery.snapshotsRead()).isEqualTo(2);
            assertThat(hourly.nearest(nearest).get(0).row())
                    .as("within its refresh interval a searcher answers from the snapshot it read")
                    .isNotEqualTo(Map.of("id", 1000L));
            assertThat(hourly.snapshotsRead()).isEqualTo(1);
        }
    }

    @Test
    void aQueryOfAColumnThatIsNoVectorOrOfTheWrongDimensionIsRefusedByName() throws Exception {
        Path table = dir.resolve("refused");
        Map<Long, float[]> model = new TreeMap<>();
        VectorTableJob.of(ROW, DIMENSION).write(table, List.of(upsert(model, 1L, new float[DIMENSION])));
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThatThrownBy(() -> reader.nearest(ReadMode.COMMITTED, NearestQuery.of("emb", new float[3], K)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column 'emb'")
                    .hasMessageContaining("dimension " + DIMENSION + ", the query vector has 3");
            assertThatThrownBy(() -> reader.nearest(ReadMode.COMMITTED, NearestQuery.of("note", new float[3], K)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column 'note'")
                    .hasMessageContaining("not a vector column");
            assertThatThrownBy(() -> reader.nearest(ReadMode.COMMITTED, NearestQuery.of("nope", new float[3], K)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no column 'nope'");
        }
        assertThatThrownBy(() -> NearestQuery.of("emb", new float[] {1, Float.NaN}, K))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN at index 1");
        assertThatThrownBy(() -> NearestQuery.of("emb", new float[] {1}, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("k must be positive");
    }

    private static RowData upsert(Map<Long, float[]> model, long id, float[] vector) {
        model.put(id, vector);
        return GenericRowData.of(id, StringData.fromString("row " + id), new GenericArrayData(vector));
    }

    private static float[] far(Random random) {
        float[] v = Vectors.gaussian(random, DIMENSION);
        for (int i = 0; i < v.length; i++) {
            v[i] = v[i] * 0.1f + (i % 2 == 0 ? 40 : -40);
        }
        return v;
    }

    private static float[] near(Random random, float[] query) {
        float[] v = query.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] += (float) (random.nextGaussian() * 0.05);
        }
        return v;
    }

    /** The model's {@code n} nearest keys, by Lance's definition of each metric. */
    private static List<Long> exact(Map<Long, float[]> model, float[] query, MaintainedIndex.Metric metric, int n) {
        return model.entrySet().stream()
                .sorted(Comparator.comparingDouble(e -> distance(metric, e.getValue(), query)))
                .limit(n)
                .map(Map.Entry::getKey)
                .toList();
    }

    /**
     * How far apart two distances may be and still be a tie: Lance computes them in float32, so rows
     * whose exact distances differ by less than its rounding may come back in either order.
     */
    private static double tie(double distance) {
        return 1e-5 * Math.max(1, Math.abs(distance));
    }

    private static double distance(MaintainedIndex.Metric metric, float[] v, float[] q) {
        double dot = 0;
        double nv = 0;
        double nq = 0;
        for (int i = 0; i < v.length; i++) {
            dot += (double) v[i] * q[i];
            nv += (double) v[i] * v[i];
            nq += (double) q[i] * q[i];
        }
        return switch (metric) {
            case L2 -> Vectors.squaredDistance(v, q);
            case COSINE -> 1 - dot / Math.sqrt(nv * nq);
            case DOT -> 1 - dot;
        };
    }
}
