package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.MaintainedIndex;
import io.walsink.read.TableReader;
import io.walsink.read.TextHit;
import io.walsink.read.TextQuery;
import io.walsink.testing.Compactions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
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
 * {@link TableReader#fullText} over a table with a maintained full-text index: the answers for a
 * word are exactly the live keys whose newest text holds it, while SSTables above the base table
 * (two generations, compaction off) rewrite matching base rows into non-matching ones and back,
 * delete matching rows and add new ones; and again after a compaction merged them.
 */
class FullTextReadTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int DIMENSION = 4;
    private static final int ROWS = 600;
    private static final RowType ROW = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new ArrayType(new FloatType(false))
            },
            new String[] {"id", "text", "emb"});
    private static final MaintainedIndex TEXT =
            MaintainedIndex.scalar("text_idx", "text", MaintainedIndex.Type.INVERTED);

    // lance-core's native threads may still hold files when JUnit deletes the folder.
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void theAnswersAreTheLiveKeysWhoseNewestTextMatches() throws Exception {
        long seed = Long.getLong("walsink.seed", System.nanoTime());
        System.out.println("FullTextReadTest seed " + seed);
        Random random = new Random(seed);
        Path table = dir.resolve("text");
        Map<Long, String> model = new TreeMap<>();
        List<RowData> first = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            first.add(upsert(model, id, random.nextInt(4) == 0 ? "a striped zebra " + id : "a grey horse " + id));
        }
        VectorTableJob job = VectorTableJob.of(ROW, DIMENSION).index(TEXT);
        job.write(table, first);
        Compactions.once(table); // the base table and its full-text index hold them all

        List<RowData> older = new ArrayList<>();
        List<RowData> newer = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            boolean zebra = model.get(id).contains("zebra");
            switch (random.nextInt(8)) {
                case 0 -> older.add(upsert(model, id, zebra ? "no longer striped " + id : "now a zebra " + id));
                case 1 -> {
                    older.add(upsert(model, id, "a zebra for a while " + id));
                    newer.add(upsert(model, id, "then a horse again " + id));
                }
                case 2 -> {
                    model.remove(id);
                    older.add(GenericRowData.ofKind(RowKind.DELETE, id, null, null));
                }
                default -> {}
            }
        }
        for (long id = ROWS; id < ROWS + 40; id++) {
            newer.add(upsert(model, id, "a fresh zebra " + id));
        }
        VectorTableJob above = VectorTableJob.of(ROW, DIMENSION).index(TEXT).compaction(false);
        above.write(table, older);
        above.write(table, newer); // a second generation over the first

        Set<Long> zebras = model.entrySet().stream()
                .filter(e -> e.getValue().contains("zebra"))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(ids(reader.fullText(new TextQuery("text", "zebra", 10 * ROWS))))
                    .as("matches above the base table, seed %s", seed)
                    .isEqualTo(zebras);
            List<TextHit<Map<String, Object>>> best = reader.fullText(new TextQuery("text", "zebra", 5));
            assertThat(best).hasSize(5);
            assertThat(zebras).containsAll(ids(best));
            assertThat(best).isSortedAccordingTo((a, b) -> Double.compare(b.score(), a.score()));
            for (TextHit<Map<String, Object>> hit : best) {
                assertThat(hit.row().get("text"))
                        .isEqualTo(model.get((Long) hit.row().get("id")));
            }
            assertThatThrownBy(() -> reader.fullText(new TextQuery("id", "zebra", 5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no full-text (INVERTED) index on column 'id'");
        }
        Compactions.once(table);
        try (TableReader reader = TableReader.open(table.toString())) {
            assertThat(ids(reader.fullText(new TextQuery("text", "zebra", 10 * ROWS))))
                    .as("after the compaction merged them, seed %s", seed)
                    .isEqualTo(zebras);
        }
    }

    private static Set<Long> ids(List<TextHit<Map<String, Object>>> hits) {
        return hits.stream().map(h -> (Long) h.row().get("id")).collect(Collectors.toCollection(TreeSet::new));
    }

    private static RowData upsert(Map<Long, String> model, long id, String text) {
        model.put(id, text);
        return GenericRowData.of(id, StringData.fromString(text), new GenericArrayData(new float[DIMENSION]));
    }
}
