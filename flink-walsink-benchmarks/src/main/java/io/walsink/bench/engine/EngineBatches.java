package io.walsink.bench.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The input of the engine comparison: seeded batches of (int64 key, utf8, float64), generated
 * once before any timing so both writers take exactly the same Arrow batches.
 */
final class EngineBatches {
    static final String KEY = "id";
    static final Schema SCHEMA = new Schema(List.of(
            new Field(KEY, FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    private EngineBatches() {}

    /** {@code rows} rows in batches of {@code batchRows}, keys uniform in {@code [0, keys)}. */
    static List<VectorSchemaRoot> generate(BufferAllocator allocator, long rows, int batchRows, long keys, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        for (long done = 0; done < rows; ) {
            int n = (int) Math.min(batchRows, rows - done);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
            BigIntVector id = (BigIntVector) root.getVector(0);
            VarCharVector name = (VarCharVector) root.getVector(1);
            Float8Vector score = (Float8Vector) root.getVector(2);
            id.allocateNew(n);
            score.allocateNew(n);
            name.allocateNew(n * 16L, n);
            for (int r = 0; r < n; r++) {
                long key = random.nextLong(keys);
                id.set(r, key);
                name.setSafe(r, ("user-" + key + "-" + (done + r)).getBytes(StandardCharsets.UTF_8));
                score.set(r, random.nextDouble());
            }
            root.setRowCount(n);
            batches.add(root);
            done += n;
        }
        return batches;
    }

    /** Bytes of the batches' Arrow buffers (the payload both writers receive). */
    static long bufferBytes(List<VectorSchemaRoot> batches) {
        long bytes = 0;
        for (VectorSchemaRoot b : batches) {
            for (var v : b.getFieldVectors()) {
                bytes += v.getBufferSize();
            }
        }
        return bytes;
    }
}
