package io.walsink.flink;

import io.walsink.format.table.MaintainedIndex;
import io.walsink.read.NearestQuery;
import io.walsink.read.ReadMode;
import io.walsink.read.TableReader;
import io.walsink.testing.LanceDbSearch.Hit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * A job the vector tests write with: rows keyed by {@code id}, with the vector column {@code emb},
 * through the sink at parallelism 2 into a table of 2 buckets, checkpointing every 200 ms unless
 * told otherwise, the sink's maintenance on unless told otherwise.
 */
final class VectorTableJob {
    /** Rows of a key, a text and a vector, as the LanceDB search tests write them. */
    static final RowType TEXT_AND_VECTOR = RowType.of(
            new LogicalType[] {
                new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new ArrayType(new FloatType(false))
            },
            new String[] {"id", "text", "emb"});
    /** The vector index those tests maintain on {@code emb}. */
    static final MaintainedIndex EMB_IVF_PQ = MaintainedIndex.ivfPq("emb_idx", "emb", 4, 4);
    /** The full-text index those tests maintain on {@code text}. */
    static final MaintainedIndex TEXT_INVERTED =
            MaintainedIndex.scalar("text_idx", "text", MaintainedIndex.Type.INVERTED);

    private final RowType row;
    private final int dimension;
    private final List<MaintainedIndex> indexes = new ArrayList<>();
    private boolean compaction = true;
    private long checkpointMillis = 200;

    private VectorTableJob(RowType row, int dimension) {
        this.row = row;
        this.dimension = dimension;
    }

    static VectorTableJob of(RowType row, int dimension) {
        return new VectorTableJob(row, dimension);
    }

    VectorTableJob index(MaintainedIndex index) {
        indexes.add(index);
        return this;
    }

    /** Off: what it writes stays in SSTables above the base table. */
    VectorTableJob compaction(boolean enabled) {
        compaction = enabled;
        return this;
    }

    VectorTableJob checkpointEvery(long millis) {
        checkpointMillis = millis;
        return this;
    }

    /** walsink's {@code TableReader.nearest} (COMMITTED): per query, the {@code k} nearest keys and distances. */
    static List<List<Hit>> walsinkNearest(Path table, List<float[]> queries, int k) {
        try (TableReader reader = TableReader.open(table.toString())) {
            List<List<Hit>> all = new ArrayList<>();
            for (float[] query : queries) {
                all.add(reader.nearest(ReadMode.COMMITTED, NearestQuery.of("emb", query, k)).stream()
                        .map(n -> new Hit((Long) n.row().get("id"), n.distance()))
                        .toList());
            }
            return all;
        }
    }

    void write(Path table, List<RowData> rows) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        WalSinkBuilder<RowData> sink = WalSink.forRowData(row)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .vectorColumn("emb", dimension)
                .compaction(compaction);
        indexes.forEach(sink::maintainedIndex);
        env.fromData(rows, InternalTypeInfo.of(row)).sinkTo(sink.build());
        env.execute("vectors into " + table.getFileName());
    }
}
