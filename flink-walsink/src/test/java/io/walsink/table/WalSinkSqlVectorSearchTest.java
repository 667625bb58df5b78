package io.walsink.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.MiniClusters;
import io.walsink.testing.Vectors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink SQL's {@code VECTOR_SEARCH} over a walsink table: each query row gets the table's nearest
 * live rows (with their score, Lance's distance), the newest row of every key, as the model says.
 * The table has no vector index, so the base table is searched exactly and the answers must be
 * exactly the model's; some keys were rewritten by a later INSERT next to the queries.
 */
class WalSinkSqlVectorSearchTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 8;
    private static final int K = 5;
    private static final String COLUMNS = "id BIGINT, note STRING, emb ARRAY<FLOAT>, PRIMARY KEY (id) NOT ENFORCED";

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void eachQueryRowGetsTheNearestLiveRowsWithTheirDistance() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("WalSinkSqlVectorSearchTest seed " + seed);
        Random random = new Random(seed);
        StreamTableEnvironment sql = SqlTables.env();
        sql.executeSql(SqlTables.walsinkTable(
                "v", COLUMNS, dir.resolve("v"), "buckets", "2", "vector.emb.dimension", String.valueOf(DIMENSION)));
        Map<Long, float[]> model = new TreeMap<>();
        List<String> rows = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            rows.add(row(model, id, Vectors.gaussian(random, DIMENSION)));
        }
        sql.executeSql("INSERT INTO v VALUES " + String.join(", ", rows)).await();
        List<float[]> queries = new ArrayList<>();
        List<String> rewrites = new ArrayList<>();
        for (int q = 0; q < 6; q++) {
            float[] query = Vectors.gaussian(random, DIMENSION);
            queries.add(query);
            float[] near = query.clone();
            near[0] += 0.01f;
            rewrites.add(row(model, q * 7L, near)); // a key of the first INSERT moves next to the query
        }
        sql.executeSql("INSERT INTO v VALUES " + String.join(", ", rewrites)).await();

        List<String> probes = new ArrayList<>();
        for (int q = 0; q < queries.size(); q++) {
            probes.add("(" + q + ", CAST(" + array(queries.get(q)) + " AS ARRAY<FLOAT>))");
        }
        Map<Integer, List<Long>> found = new TreeMap<>();
        Map<Integer, List<Double>> scores = new TreeMap<>();
        for (Row r : SqlTables.collect(
                sql,
                // Flink 2.3 fails to plan an aliased VECTOR_SEARCH (... AS s): columns are picked outside
                "WITH q(qid, qv) AS (SELECT * FROM (VALUES " + String.join(", ", probes) + "))"
                        + " SELECT qid, id, note, score FROM (SELECT * FROM q,"
                        + " LATERAL TABLE(VECTOR_SEARCH(TABLE v, DESCRIPTOR(emb), q.qv, " + K + ")))")) {
            int qid = (Integer) r.getField(0);
            long id = (Long) r.getField(1);
            assertThat(r.getField(2)).isEqualTo("row " + id);
            found.computeIfAbsent(qid, x -> new ArrayList<>()).add(id);
            scores.computeIfAbsent(qid, x -> new ArrayList<>()).add((Double) r.getField(3));
        }
        for (int q = 0; q < queries.size(); q++) {
            float[] query = queries.get(q);
            List<Long> want = model.entrySet().stream()
                    .sorted(Comparator.comparingDouble(e -> Vectors.squaredDistance(e.getValue(), query)))
                    .limit(K)
                    .map(Map.Entry::getKey)
                    .toList();
            assertThat(found.get(q))
                    .as("query %d, seed %s", q, seed)
                    .containsExactlyInAnyOrderElementsOf(want)
                    .contains(q * 7L); // its rewritten key, at the new place
            for (int i = 0; i < found.get(q).size(); i++) {
                assertThat(scores.get(q).get(i))
                        .as(
                                "score of %d for query %d: the squared L2 distance",
                                found.get(q).get(i), q)
                        .isCloseTo(
                                Vectors.squaredDistance(model.get(found.get(q).get(i)), query),
                                org.assertj.core.data.Offset.offset(1e-3));
            }
        }
    }

    private static String row(Map<Long, float[]> model, long id, float[] vector) {
        model.put(id, vector);
        return "(" + id + ", 'row " + id + "', " + array(vector) + ")";
    }

    private static String array(float[] vector) {
        List<String> values = new ArrayList<>();
        for (float f : vector) {
            values.add("CAST(" + f + " AS FLOAT)");
        }
        return "ARRAY[" + String.join(", ", values) + "]";
    }
}
