package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.table.AppendRowKey;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The generated row keys ({@link AppendRowKey}) of one shard's memtables. A replayed row keeps the
 * key it was written with, which may name a generation the shard gives out again (a memtable that
 * never became an SSTable); new rows of such a generation are numbered above every replayed row of
 * it, so replayed and new rows never share a key.
 */
@Internal
public final class RowKeys {
    /** For a table whose rows carry their key, or have none: nothing is generated. */
    public static final RowKeys NONE = new RowKeys(0, -1);

    private final int bucket;
    private final int column;
    private final Map<Long, Long> replayedAbove = new HashMap<>(); // generation -> first row number free
    private long roomGeneration = -1; // the generation whose room was looked up last (a per-row check)
    private long room;

    /** @param column the row key's position in the storage schema */
    public RowKeys(int bucket, int column) {
        this.bucket = bucket;
        this.column = column;
    }

    /** The generated column's position in the storage schema, or -1. */
    int column() {
        return column;
    }

    /** Where a row writer writes the users' values: the batch's columns without the generated one. */
    FieldVector[] writerColumns(OpenBatch batch) {
        return column < 0 ? batch.columns() : batch.inputColumns(column);
    }

    /** Notes the keys of {@code stored}, a replayed batch in the storage schema. */
    public void replayed(VectorSchemaRoot stored) {
        if (column < 0) {
            return;
        }
        BigIntVector keys = (BigIntVector) stored.getVector(column);
        for (int r = 0; r < stored.getRowCount(); r++) {
            long key = keys.get(r);
            replayedAbove.merge(AppendRowKey.generation(key), AppendRowKey.row(key) + 1, Math::max);
        }
        roomGeneration = -1;
    }

    /** Sets the keys of rows {@code [at, at + count)} of {@code batch}: memtable rows {@code first} on. */
    void fill(OpenBatch batch, int at, int count, long generation, long first) {
        if (column < 0) {
            return;
        }
        BigIntVector keys = (BigIntVector) batch.columns()[column];
        long offset = replayedAbove.getOrDefault(generation, 0L);
        for (int r = 0; r < count; r++) {
            keys.setSafe(at + r, AppendRowKey.key(bucket, generation, offset + first + r));
        }
    }

    /** How many more rows a memtable of {@code generation} holding {@code rows} rows can number. */
    public long room(long generation, long rows) {
        if (column < 0) {
            return Long.MAX_VALUE;
        }
        if (generation != roomGeneration) {
            room = AppendRowKey.MAX_ROWS_PER_GENERATION - replayedAbove.getOrDefault(generation, 0L);
            roomGeneration = generation;
        }
        return room - rows;
    }
}
