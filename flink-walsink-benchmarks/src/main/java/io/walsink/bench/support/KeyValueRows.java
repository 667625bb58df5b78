package io.walsink.bench.support;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The benchmark rows: an int64 key and a short string value, as Arrow input batches. */
public final class KeyValueRows {
    static final String KEY = "id";
    static final Schema SCHEMA = new Schema(List.of(
            new Field(KEY, FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    /** 16 bytes: a typical short attribute; long enough that the value column is not free. */
    private static final byte[] VALUE = "value-0123456789".getBytes(StandardCharsets.UTF_8);

    private KeyValueRows() {}

    /** A batch of {@code rows} rows, keys uniform in {@code [0, keySpace)}. */
    public static VectorSchemaRoot randomBatch(
            BufferAllocator allocator, int rows, long keySpace, SplittableRandom random) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        ((BigIntVector) root.getVector(0)).allocateNew(rows);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int r = 0; r < rows; r++) {
            name.setSafe(r, VALUE);
        }
        root.setRowCount(rows);
        refillKeys(root, keySpace, random);
        return root;
    }

    /** Draws new keys in place (the key column is fixed-width), leaving the values alone. */
    public static void refillKeys(VectorSchemaRoot root, long keySpace, SplittableRandom random) {
        BigIntVector id = (BigIntVector) root.getVector(0);
        for (int r = 0; r < root.getRowCount(); r++) {
            id.set(r, random.nextLong(keySpace));
        }
    }

    /** A batch with exactly {@code ids} as keys. */
    public static VectorSchemaRoot batchOf(BufferAllocator allocator, long[] ids) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int r = 0; r < ids.length; r++) {
            id.setSafe(r, ids[r]);
            name.setSafe(r, VALUE);
        }
        root.setRowCount(ids.length);
        return root;
    }
}
