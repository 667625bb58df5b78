package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The open batch's size, counted without setting its row count, is what the same rows count once
 * sealed; and the tombstone bit stored at the buffer's address is the one each row was written with.
 */
class OpenBatchSizeTest {
    private static final Field ID = new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null);
    private static final Field NAME = new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    private static final Field FLAG = new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
    private static final Field N = new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null);
    private static final Field BIN = new Field("bin", FieldType.nullable(new ArrowType.FixedSizeBinary(4)), null);
    private static final Field TOMBSTONE =
            new Field("_tombstone", FieldType.notNullable(ArrowType.Bool.INSTANCE), null);
    private static final Schema INPUT = new Schema(List.of(ID, NAME, FLAG, N, BIN));
    private static final Schema STORAGE = new Schema(List.of(ID, NAME, FLAG, N, BIN, TOMBSTONE));
    private static final int TOMBSTONE_COLUMN = 5;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final InputValidator validator = new InputValidator(STORAGE, List.of("id"));
    private final PrimaryKeyEncoder keys = new PrimaryKeyEncoder(List.of(ID));

    @Test
    void theOpenBatchCountsTheBytesItsSealedBatchHolds() {
        long seed = LongKeyIndexTest.seed("theOpenBatchCountsTheBytesItsSealedBatchHolds");
        Random random = new Random(seed);
        int checks = 0;
        for (int memtable = 0; memtable < 20; memtable++) {
            int batchMaxRows = 1 + random.nextInt(200);
            try (Memtable m = new Memtable(allocator, STORAGE, 1, batchMaxRows, TOMBSTONE_COLUMN, keys, RowKeys.NONE);
                    VectorSchemaRoot input = batch(300, random)) {
                List<Boolean> tombstones = new ArrayList<>();
                int rows = 1 + random.nextInt(3 * batchMaxRows);
                for (int r = 0; r < rows; r++) {
                    boolean delete = random.nextInt(3) == 0;
                    int from = random.nextInt(input.getRowCount());
                    switch (random.nextInt(4)) {
                        case 0 -> m.append(input, from, delete, keys.keyColumns(input));
                        case 1 -> m.appendRange(input, from, from + 1, delete, keys.keyColumns(input));
                        default -> {
                            if (random.nextInt(10) == 0) { // a row that fails half written is overwritten
                                assertThatThrownBy(() -> m.appendRow(failing(random), delete, validator))
                                        .isInstanceOf(InvalidInputException.class);
                                long counted = m.payloadBytes(); // the failed row's bytes are not the batch's
                                m.sealOpenBatch();
                                assertThat(m.payloadBytes())
                                        .as("seed %d, after a failed row", seed)
                                        .isEqualTo(counted);
                                checks++;
                            }
                            m.appendRow(writer(input, from), delete, validator);
                        }
                    }
                    tombstones.add(delete);
                    if (random.nextInt(5) == 0) {
                        long counted = m.payloadBytes();
                        m.sealOpenBatch(); // sealed, the batch is counted from its vectors' own sizes
                        assertThat(m.payloadBytes())
                                .as("seed %d, row %d", seed, r)
                                .isEqualTo(counted);
                        checks++;
                    }
                }
                long counted = m.payloadBytes();
                m.sealOpenBatch();
                assertThat(m.payloadBytes()).as("seed %d", seed).isEqualTo(counted);
                assertThat(tombstonesOf(m)).as("seed %d", seed).isEqualTo(tombstones);
            }
        }
        assertThat(checks).as("sizes compared while rows arrived").isPositive();
    }

    /** Copies input row {@code from} value by value, as a row writer does: nulls left unset. */
    private static RowWriter writer(VectorSchemaRoot input, int from) {
        return (columns, at) -> {
            for (int c = 0; c < INPUT.getFields().size(); c++) {
                FieldVector in = input.getVector(c);
                if (in.isNull(from)) {
                    columns[c].setNull(at);
                } else if (in instanceof VarCharVector s) {
                    ((VarCharVector) columns[c]).setSafe(at, s.get(from));
                } else {
                    columns[c].copyFromSafe(from, at, in);
                }
            }
        };
    }

    /** Writes a long string, then a null key: refused after its bytes are in the batch. */
    private static RowWriter failing(Random random) {
        return (columns, at) -> {
            columns[0].setNull(at);
            ((VarCharVector) columns[1])
                    .setSafe(at, "x".repeat(1 + random.nextInt(100)).getBytes(StandardCharsets.UTF_8));
        };
    }

    private static List<Boolean> tombstonesOf(Memtable m) {
        List<Boolean> all = new ArrayList<>();
        for (VectorSchemaRoot batch : m.sealedBatches()) {
            BitVector bits = (BitVector) batch.getVector(TOMBSTONE_COLUMN);
            for (int r = 0; r < batch.getRowCount(); r++) {
                assertThat(bits.isNull(r)).as("a tombstone is never null").isFalse();
                all.add(bits.get(r) == 1);
            }
        }
        return all;
    }

    /** Rows with nulls in every nullable column, strings of 0 to 20 bytes. */
    private VectorSchemaRoot batch(int rows, Random random) {
        VectorSchemaRoot root = VectorSchemaRoot.create(INPUT, allocator);
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        BitVector flag = (BitVector) root.getVector(2);
        IntVector n = (IntVector) root.getVector(3);
        FixedSizeBinaryVector bin = (FixedSizeBinaryVector) root.getVector(4);
        for (int r = 0; r < rows; r++) {
            id.setSafe(r, random.nextInt(50));
            if (random.nextInt(3) > 0) {
                name.setSafe(r, "s".repeat(random.nextInt(21)).getBytes(StandardCharsets.UTF_8));
            }
            if (random.nextBoolean()) {
                flag.setSafe(r, random.nextInt(2));
            }
            if (random.nextBoolean()) {
                n.setSafe(r, random.nextInt());
            }
            if (random.nextBoolean()) {
                bin.setSafe(r, new byte[] {1, 2, 3, (byte) r});
            }
        }
        root.setRowCount(rows);
        return root;
    }
}
