package io.walsink.flink;

import io.walsink.format.table.MaintainedIndex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * A job the vector tests write with: rows keyed by {@code id}, with the vector column {@code emb},
 * through the sink at parallelism 2 into a table of 2 buckets, checkpointing every 200 ms unless
 * told otherwise, the sink's maintenance on unless told otherwise.
 */
final class VectorTableJob {
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
