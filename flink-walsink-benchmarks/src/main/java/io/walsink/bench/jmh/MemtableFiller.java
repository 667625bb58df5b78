package io.walsink.bench.jmh;

import io.walsink.bench.support.KeyValueRows;
import io.walsink.format.key.KeyBuffer;
import io.walsink.shard.TableContext;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Builds a memtable holding given keys, through the same key encoding the shard writer uses. */
final class MemtableFiller {
    private MemtableFiller() {}

    /** A memtable with one upsert per entry of {@code ids}, in order; its batches are sealed. */
    static Memtable of(TableContext ctx, long[] ids) {
        Memtable memtable = new Memtable(
                ctx.allocator(),
                ctx.storage().schema(),
                1,
                ctx.config().batchMaxRows(),
                ctx.tombstoneColumn(),
                ctx.keys(),
                RowKeys.NONE);
        KeyBuffer key = new KeyBuffer();
        try (VectorSchemaRoot rows = KeyValueRows.batchOf(ctx.allocator(), ids)) {
            FieldVector[] keyColumns = ctx.keys().keyColumns(rows);
            for (int r = 0; r < ids.length; r++) {
                ctx.keys().encode(keyColumns, r, key);
                memtable.append(rows, r, false, key.array(), key.length());
            }
        }
        memtable.sealOpenBatch();
        return memtable;
    }
}
