package io.walsink.testing;

import io.walsink.format.key.KeyBuffer;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.format.wal.WalEntryCodec;
import io.walsink.format.wal.WalLog;
import io.walsink.format.wal.WalStorageSchema;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Builds memtables from {@link RowOp}s the way the shard writer fills them (keys from the encoder). */
public final class Memtables {
    private final WalStorageSchema storage;
    private final BufferAllocator allocator;
    private final Schema input;
    private final PrimaryKeyEncoder keys;
    private final int tombstoneColumn;

    public Memtables(WalStorageSchema storage, BufferAllocator allocator) {
        this.storage = storage;
        this.allocator = allocator;
        List<Field> fields = storage.schema().getFields();
        this.input = new Schema(fields.stream()
                .filter(f -> !f.getName().equals(WalStorageSchema.TOMBSTONE))
                .toList());
        this.keys = storage.primaryKey().isEmpty()
                ? null
                : new PrimaryKeyEncoder(storage.primaryKey().stream()
                        .map(k -> storage.schema().findField(k))
                        .toList());
        this.tombstoneColumn = storage.hasTombstone() ? fields.size() - 1 : -1;
    }

    /** A memtable holding {@code ops} in order, every batch sealed, not frozen, nothing durable. */
    public Memtable build(long generation, int batchMaxRows, List<RowOp> ops) {
        Memtable m = new Memtable(
                allocator, storage.schema(), generation, batchMaxRows, tombstoneColumn, keys, RowKeys.NONE);
        try (VectorSchemaRoot in = ArrowRows.batch(
                allocator, input, ops.stream().map(RowOp::values).toList())) {
            FieldVector[] keyColumns = keys == null ? null : keys.keyColumns(in);
            KeyBuffer key = new KeyBuffer();
            for (int r = 0; r < ops.size(); r++) {
                if (keys == null) {
                    m.append(in, r, ops.get(r).delete(), null, 0);
                } else {
                    keys.encode(keyColumns, r, key);
                    m.append(in, r, ops.get(r).delete(), key.array(), key.length());
                }
            }
        }
        m.sealOpenBatch();
        return m;
    }

    /** A frozen memtable whose rows all sit in WAL entry {@code walPosition} (not written). */
    public Memtable frozen(long generation, int batchMaxRows, List<RowOp> ops, long walPosition) {
        Memtable m = build(generation, batchMaxRows, ops);
        m.freeze();
        m.markDurable(m.pendingBatches().size(), walPosition);
        return m;
    }

    /** Appends the memtable's pending batches as WAL entry {@code position} and marks them durable. */
    public void appendToWal(Memtable m, WalLog log, WalEntryCodec codec, long epoch, long position) {
        log.append(position, codec.encode(epoch, m.generation(), m.pendingBatches()));
        m.markDurable(m.pendingBatches().size(), position);
    }

    public static Map<String, Object> row(Object... keyValues) {
        java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
