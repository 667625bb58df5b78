package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.junit.jupiter.api.Test;

/**
 * The run copy of an SSTable's surviving rows equals Arrow's row-by-row copy of the same rows,
 * for every kind of column it treats differently (fixed width, variable width, booleans, nested),
 * with nulls, and for masks from "none" to "all" through short and long runs.
 */
class MarkedRowsCopyTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("i64", new ArrowType.Int(64, true)),
            Field.nullable("i32", new ArrowType.Int(32, true)),
            Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE),
            Field.nullable("b", ArrowType.Binary.INSTANCE),
            Field.nullable("flag", ArrowType.Bool.INSTANCE),
            Field.nullable("dec", new ArrowType.Decimal(20, 4, 128)),
            Field.nullable("fixed", new ArrowType.FixedSizeBinary(3)),
            new Field(
                    "list",
                    FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(Field.nullable("item", new ArrowType.Int(32, true))))));

    @Test
    void runCopiesEqualRowCopiesForEveryColumnKindAndMask() {
        long seed = LongKeyIndexTest.seed("runCopiesEqualRowCopiesForEveryColumnKindAndMask");
        Random random = new Random(seed);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int trial = 0; trial < 60; trial++) {
                int rows = 1 + random.nextInt(300);
                try (VectorSchemaRoot source = randomBatch(allocator, rows, random);
                        VectorSchemaRoot actual = VectorSchemaRoot.create(SCHEMA, allocator);
                        VectorSchemaRoot expected = VectorSchemaRoot.create(SCHEMA, allocator)) {
                    boolean[] marked = mask(rows, trial % 5, random);
                    MarkedRowsCopy.copy(source, marked, actual);
                    rowCopy(source, marked, expected);
                    for (FieldVector v : actual.getFieldVectors()) {
                        ValueVectorUtility.validate(v);
                    }
                    assertThat(describe(actual))
                            .as("trial %d (%d rows, mask kind %d), seed %d", trial, rows, trial % 5, seed)
                            .isEqualTo(describe(expected));
                    // the target is reused batch after batch: a second copy must replace, not append
                    MarkedRowsCopy.copy(source, marked, actual);
                    assertThat(describe(actual)).isEqualTo(describe(expected));
                }
            }
        }
    }

    @Test
    void copiesOfSeveralBatchesEqualRowCopiesEndToEnd() {
        long seed = LongKeyIndexTest.seed("copiesOfSeveralBatchesEqualRowCopiesEndToEnd");
        Random random = new Random(seed);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int trial = 0; trial < 30; trial++) {
                int batches = 1 + random.nextInt(4);
                List<VectorSchemaRoot> sources = new java.util.ArrayList<>();
                List<boolean[]> marks = new java.util.ArrayList<>();
                try (VectorSchemaRoot actual = VectorSchemaRoot.create(SCHEMA, allocator)) {
                    List<String> rows = new java.util.ArrayList<>();
                    for (int b = 0; b < batches; b++) {
                        int n = 1 + random.nextInt(200);
                        sources.add(randomBatch(allocator, n, random));
                        marks.add(mask(n, random.nextInt(5), random));
                        try (VectorSchemaRoot one = VectorSchemaRoot.create(SCHEMA, allocator)) {
                            rowCopy(sources.get(b), marks.get(b), one);
                            rows.addAll(describe(one));
                        }
                    }
                    MarkedRowsCopy.copy(sources, marks, actual);
                    for (FieldVector v : actual.getFieldVectors()) {
                        ValueVectorUtility.validate(v);
                    }
                    assertThat(describe(actual))
                            .as("trial %d (%d batches), seed %d", trial, batches, seed)
                            .isEqualTo(rows);
                } finally {
                    sources.forEach(VectorSchemaRoot::close);
                }
            }
        }
    }

    /** Every value of every row, byte arrays by content. */
    private static List<String> describe(VectorSchemaRoot root) {
        List<String> rows = new java.util.ArrayList<>();
        for (int r = 0; r < root.getRowCount(); r++) {
            StringBuilder row = new StringBuilder();
            for (FieldVector v : root.getFieldVectors()) {
                Object value = v.getObject(r);
                row.append(value instanceof byte[] bytes ? java.util.Arrays.toString(bytes) : String.valueOf(value))
                        .append('|');
            }
            rows.add(row.toString());
        }
        return rows;
    }

    private static boolean[] mask(int rows, int kind, Random random) {
        boolean[] marked = new boolean[rows + random.nextInt(3)]; // may be longer than the batch
        for (int r = 0; r < marked.length; r++) {
            marked[r] = switch (kind) {
                case 0 -> false;
                case 1 -> r < rows;
                case 2 -> r % 2 == 0;
                case 3 -> random.nextInt(10) != 0; // long runs: few keys updated
                default -> random.nextBoolean();
            };
        }
        return marked;
    }

    private static void rowCopy(VectorSchemaRoot source, boolean[] marked, VectorSchemaRoot target) {
        int kept = 0;
        for (int r = 0; r < source.getRowCount(); r++) {
            if (marked[r]) {
                for (int c = 0; c < SCHEMA.getFields().size(); c++) {
                    target.getVector(c).copyFromSafe(r, kept, source.getVector(c));
                }
                kept++;
            }
        }
        target.setRowCount(kept);
    }

    private static VectorSchemaRoot randomBatch(BufferAllocator allocator, int rows, Random random) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        UnionListWriter list = ((ListVector) root.getVector("list")).getWriter();
        for (int r = 0; r < rows; r++) {
            set(root, r, random);
            list.setPosition(r);
            if (random.nextInt(5) != 0) {
                list.startList();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.writeInt(random.nextInt());
                }
                list.endList();
            }
        }
        root.setRowCount(rows);
        return root;
    }

    /** Sets each flat column of row {@code r}, leaving about one value in six null. */
    private static void set(VectorSchemaRoot root, int r, Random random) {
        List<FieldVector> flat = root.getFieldVectors().subList(0, 8);
        for (int c = 0; c < flat.size(); c++) {
            if (random.nextInt(6) == 0) {
                flat.get(c).setNull(r);
                continue;
            }
            FieldVector v = flat.get(c);
            switch (c) {
                case 0 -> ((BigIntVector) v).setSafe(r, random.nextLong());
                case 1 -> ((IntVector) v).setSafe(r, random.nextInt());
                case 2 -> ((Float8Vector) v).setSafe(r, random.nextDouble());
                case 3 -> ((VarCharVector) v)
                        .setSafe(r, "x".repeat(random.nextInt(20)).getBytes(StandardCharsets.UTF_8));
                case 4 -> ((VarBinaryVector) v).setSafe(r, new byte[random.nextInt(9)]);
                case 5 -> ((BitVector) v).setSafe(r, random.nextInt(2));
                case 6 -> ((DecimalVector) v).setSafe(r, BigDecimal.valueOf(random.nextInt(), 4));
                default -> ((FixedSizeBinaryVector) v).setSafe(r, new byte[] {1, 2, (byte) r});
            }
        }
    }
}
