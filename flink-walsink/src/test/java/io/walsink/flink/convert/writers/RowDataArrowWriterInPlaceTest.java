package io.walsink.flink.convert.writers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.convert.ColumnValueException;
import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.shard.memtable.InputValidator;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator's path into a memtable ({@code writeInPlace}, values stored at the open batch's
 * buffer addresses) holds exactly what the checked path ({@code write}) holds for the same rows:
 * across batches, with nulls, empty and long strings that grow the data buffer, binary rows (as
 * they arrive from a shuffle) mixed with generic ones, and rows that fail half written.
 */
class RowDataArrowWriterInPlaceTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private static final RowType TYPE = RowType.of(
            new LogicalType[] {
                new BigIntType(false),
                new IntType(),
                new FloatType(),
                new DoubleType(),
                VarCharType.STRING_TYPE,
                new BigIntType(),
                VarCharType.STRING_TYPE,
                new BigIntType(false)
            },
            new String[] {"id", "i", "f", "d", "s", "n", "t", "z"});

    private static final int[] STRING_LENGTHS = {0, 1, 7, 8, 9, 100, 3000};

    @Test
    void rowsWrittenInPlaceEqualRowsWrittenWithChecks() {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println("rowsWrittenInPlaceEqualRowsWrittenWithChecks seed " + seed
                + " (rerun with -Dwalsink.test.seed=" + seed + ")");
        Random random = new Random(seed);
        Schema schema = FlinkArrowTypes.toArrowSchema(TYPE);
        RowDataArrowWriter writer = RowDataArrowWriter.create(TYPE, schema);
        RowDataSerializer shuffle = new RowDataSerializer(TYPE);
        InputValidator validator = new InputValidator(schema, List.of("id"));
        PrimaryKeyEncoder keys =
                new PrimaryKeyEncoder(List.of(schema.getFields().get(0)));

        List<RowData> accepted = new ArrayList<>();
        int failed = 0;
        try (Memtable memtable = new Memtable(allocator, schema, 1, 700, -1, keys, RowKeys.NONE)) {
            for (int r = 0; r < 5_000; r++) {
                GenericRowData generic = row(random, r);
                RowData row = random.nextInt(4) == 0 ? generic : binary(shuffle, generic);
                if (generic.isNullAt(7)) {
                    // z is NOT NULL and written last: the row fails after its strings went in place.
                    assertThatThrownBy(() -> memtable.appendRow(
                                    (columns, at) -> writer.writeInPlace(row, columns, at), false, validator))
                            .isInstanceOf(ColumnValueException.class)
                            .hasMessageContaining("NOT NULL");
                    failed++;
                } else {
                    memtable.appendRow((columns, at) -> writer.writeInPlace(row, columns, at), false, validator);
                    accepted.add(generic);
                }
            }
            memtable.sealOpenBatch();

            assertThat(failed)
                    .as("rows that failed half written, seed %d", seed)
                    .isPositive();
            assertThat(memtable.sealedBatchCount()).as("seed %d", seed).isGreaterThan(1);
            List<String> actual = new ArrayList<>();
            for (VectorSchemaRoot batch : memtable.sealedBatches()) {
                actual.addAll(describe(batch));
            }
            try (VectorSchemaRoot checked = VectorSchemaRoot.create(schema, allocator)) {
                for (int r = 0; r < accepted.size(); r++) {
                    writer.write(accepted.get(r), checked, r);
                }
                checked.setRowCount(accepted.size());
                assertThat(actual).as("seed %d", seed).containsExactlyElementsOf(describe(checked));
            }
        }
    }

    /**
     * A memtable's batches are allocated without zeroing their values: over the memory of a
     * retired memtable whose every value bit was set, nulls still read as nulls and a null's
     * value bytes are zero (the same rows make the same bytes).
     */
    @Test
    void batchesOverReleasedMemoryHoldNullsAsNullsWithZeroValues() {
        Schema schema = FlinkArrowTypes.toArrowSchema(TYPE);
        RowDataArrowWriter writer = RowDataArrowWriter.create(TYPE, schema);
        InputValidator validator = new InputValidator(schema, List.of("id"));
        PrimaryKeyEncoder keys =
                new PrimaryKeyEncoder(List.of(schema.getFields().get(0)));
        int rows = 3 * 4096 + 5; // the last batch's validity ends inside a byte
        try (OffHeapAllocators.Recycling recycling = OffHeapAllocators.root(256L << 20, 256L << 20)) {
            try (Memtable retired = new Memtable(recycling, schema, 1, 4096, -1, keys, RowKeys.NONE)) {
                for (int r = 0; r < rows; r++) {
                    RowData full = GenericRowData.of(
                            -1L, -1, Float.intBitsToFloat(-1), Double.longBitsToDouble(-1L), null, -1L, null, -1L);
                    retired.appendRow((columns, at) -> writer.writeInPlace(full, columns, at), false, validator);
                }
                retired.sealOpenBatch();
            }
            long reusedBefore = recycling.recycled().reusedCount();
            List<RowData> written = new ArrayList<>();
            try (Memtable next = new Memtable(recycling, schema, 2, 4096, -1, keys, RowKeys.NONE)) {
                for (int r = 0; r < rows; r++) {
                    RowData row = r % 3 == 0
                            ? GenericRowData.of((long) r, null, null, null, null, null, null, (long) r)
                            : GenericRowData.of((long) r, r, (float) r, (double) r, null, (long) r, null, (long) r);
                    next.appendRow((columns, at) -> writer.writeInPlace(row, columns, at), false, validator);
                    written.add(row);
                }
                next.sealOpenBatch();
                assertThat(recycling.recycled().reusedCount())
                        .as("batches that took the retired memtable's memory")
                        .isGreaterThan(reusedBefore);
                List<String> actual = new ArrayList<>();
                int nullValues = 0;
                for (VectorSchemaRoot batch : next.sealedBatches()) {
                    actual.addAll(describe(batch));
                    for (FieldVector v : batch.getFieldVectors()) {
                        if (!(v instanceof BaseFixedWidthVector fixed)) {
                            continue;
                        }
                        int width = fixed.getTypeWidth();
                        for (int r = batch.getRowCount(); r % 8 != 0; r++) {
                            assertThat(BitVectorHelper.get(fixed.getValidityBuffer(), r))
                                    .as("validity bit %d of %s, past the batch's rows", r, v.getName())
                                    .isZero();
                        }
                        for (int r = 0; r < batch.getRowCount(); r++) {
                            if (fixed.isNull(r)) {
                                for (int b = 0; b < width; b++) {
                                    assertThat(fixed.getDataBuffer().getByte((long) r * width + b))
                                            .as("byte %d of the null %s in row %d", b, v.getName(), r)
                                            .isZero();
                                }
                                nullValues++;
                            }
                        }
                    }
                }
                assertThat(nullValues).isEqualTo(4 * ((rows + 2) / 3));
                try (VectorSchemaRoot checked = VectorSchemaRoot.create(schema, allocator)) {
                    for (int r = 0; r < written.size(); r++) {
                        writer.write(written.get(r), checked, r);
                    }
                    checked.setRowCount(written.size());
                    assertThat(actual).containsExactlyElementsOf(describe(checked));
                }
            }
        }
    }

    private static GenericRowData row(Random random, int r) {
        GenericRowData row = new GenericRowData(8);
        row.setField(0, (long) random.nextInt(2_000));
        row.setField(1, random.nextInt(5) == 0 ? null : random.nextInt());
        row.setField(2, random.nextInt(5) == 0 ? null : random.nextFloat());
        row.setField(3, random.nextInt(5) == 0 ? null : random.nextDouble());
        row.setField(4, random.nextInt(5) == 0 ? null : string(random, r));
        row.setField(5, random.nextInt(5) == 0 ? null : random.nextLong());
        row.setField(6, random.nextInt(3) == 0 ? null : string(random, r));
        row.setField(7, random.nextInt(25) == 0 ? null : (long) r);
        return row;
    }

    private static StringData string(Random random, int r) {
        int length = STRING_LENGTHS[random.nextInt(STRING_LENGTHS.length)];
        char[] chars = new char[length];
        Arrays.fill(chars, (char) ('a' + r % 26));
        return StringData.fromString(new String(chars));
    }

    /** The row as a shuffle hands it over: serialized, then read back as a binary row. */
    private static RowData binary(RowDataSerializer serializer, RowData row) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(64);
            serializer.serialize(row, out);
            return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Each row's values, one line a row. */
    private static List<String> describe(VectorSchemaRoot batch) {
        List<String> rows = new ArrayList<>();
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int r = 0; r < batch.getRowCount(); r++) {
            StringBuilder line = new StringBuilder();
            for (FieldVector v : vectors) {
                if (v.isNull(r)) {
                    line.append("null");
                } else if (v instanceof VarCharVector s) {
                    line.append(new String(s.get(r), StandardCharsets.UTF_8));
                } else {
                    line.append(v.getObject(r));
                }
                line.append('|');
            }
            rows.add(line.toString());
        }
        return rows;
    }
}
