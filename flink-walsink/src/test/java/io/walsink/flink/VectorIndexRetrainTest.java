package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.LanceTables;
import io.walsink.format.table.MaintainedIndex;
import io.walsink.testing.Compactions;
import io.walsink.testing.Vectors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.Index;

/**
 * The maintained vector index's quality rule: trained on the rows of its first build, brought up to
 * date without retraining while the base table grows, and built again from all rows once the base
 * table holds twice the rows it was trained on.
 */
class VectorIndexRetrainTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 8;
    private static final String TRAINED = "walsink.index.emb_idx.trained-rows";
    private static final RowType ROW = RowType.of(
            new LogicalType[] {new BigIntType(false), new ArrayType(new FloatType(false))}, new String[] {"id", "emb"});
    private static final MaintainedIndex INDEX = MaintainedIndex.ivfPq("emb_idx", "emb", 2, 2);

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void theIndexIsRetrainedOnceTheBaseTableHoldsTwiceItsTrainingRows() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("VectorIndexRetrainTest seed " + seed);
        Random random = new Random(seed);
        Path table = dir.resolve("retrain");
        VectorTableJob job = VectorTableJob.of(ROW, DIMENSION).index(INDEX).compaction(false);

        job.write(table, rows(random, 0, 400));
        Compactions.once(table);
        assertThat(state(table)).as("trained on the first merge's rows").containsEntry("trained", 400L);
        long firstBuild = state(table).get("oldest segment version");

        job.write(table, rows(random, 400, 700));
        Compactions.once(table);
        assertThat(state(table))
                .as("700 < 2 x 400 rows: brought up to date, not retrained")
                .containsEntry("trained", 400L);

        job.write(table, rows(random, 700, 800));
        Compactions.once(table);
        Map<String, Long> retrained = state(table);
        assertThat(retrained)
                .as("800 >= 2 x 400 rows: built again from all rows")
                .containsEntry("trained", 800L)
                .containsEntry("segments", 1L);
        assertThat(retrained.get("oldest segment version")).isGreaterThan(firstBuild);
    }

    private static List<RowData> rows(Random random, long from, long to) {
        List<RowData> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            rows.add(GenericRowData.of(id, new GenericArrayData(Vectors.gaussian(random, DIMENSION))));
        }
        return rows;
    }

    /** The recorded training rows and the index's segments, as lance-core reads the base table. */
    private static Map<String, Long> state(Path table) {
        try (RootAllocator allocator = new RootAllocator();
                Dataset base = LanceTables.openDataset(allocator, table.toString(), Map.of())) {
            List<Index> segments = base.getIndexes().stream()
                    .filter(i -> i.name().equals("emb_idx"))
                    .toList();
            return Map.of(
                    "trained",
                    Long.parseLong(base.getConfig().getOrDefault(TRAINED, "-1")),
                    "segments",
                    (long) segments.size(),
                    "oldest segment version",
                    segments.stream().mapToLong(Index::datasetVersion).min().orElse(-1));
        }
    }
}
