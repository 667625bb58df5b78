package io.walsink.shard.memtable;

import io.walsink.annotation.Internal;
import io.walsink.format.table.AppendRowKey;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The generated row keys ({@link AppendRowKey}) of one shard's memtables. A replayed row keeps the
 * key it was written with, which may name a generation the shard gives out again (a memtable that
 * never became an SSTable); new rows of such a generation are numbered above every replayed row of
 * it, so replayed and new rows never share a key.
 */
@Internal
public final class RowKeys {
    private final int bucket;
    private final int column;
    private final Map<Long, Long> replayedAbove = new HashMap<>(); // generation -> first row number free

    /** @param column the row key's position in the storage schema */
    public RowKeys(int bucket, int column) {
        this.bucket = bucket;
        this.column = column;
    }

    int column() {
        return column;
    }

    /** Notes the keys of {@code stored}, a replayed batch in the storage schema. */
    void replayed(VectorSchemaRoot stored) {
        BigIntVector keys = (BigIntVector) stored.getVector(column);
        for (int r = 0; r < stored.getRowCount(); r++) {
            long key = keys.get(r);
            replayedAbove.merge(AppendRowKey.generation(key), AppendRowKey.row(key) + 1, Math::max);
        }
    }

    /** Sets the keys of rows {@code [at, at + count)} of {@code batch}, memtable rows {@code first} on. */
    void fill(BigIntVector batch, int at, int count, long generation, long first) {
        long offset = replayedAbove.getOrDefault(generation, 0L);
        for (int r = 0; r < count; r++) {
            batch.setSafe(at + r, AppendRowKey.key(bucket, generation, offset + first + r));
        }
    }

    /** The rows a memtable of {@code generation} can number. */
    long room(long generation) {
        return AppendRowKey.MAX_ROWS_PER_GENERATION - replayedAbove.getOrDefault(generation, 0L);
    }
}
