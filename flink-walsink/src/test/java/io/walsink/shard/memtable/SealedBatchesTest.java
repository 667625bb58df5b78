package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Pending bytes are the batches not yet in the WAL, whatever number of batches came before them. */
class SealedBatchesTest {
    private static final Schema SCHEMA =
            new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    private static VectorSchemaRoot batch(BufferAllocator allocator, int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector(0);
        id.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            id.set(i, i);
        }
        root.setRowCount(rows);
        return root;
    }

    @Test
    void pendingBytesAreTheBatchesAfterTheDurableOnes() {
        try (BufferAllocator allocator = new RootAllocator();
                SealedBatches sealed = new SealedBatches()) {
            int[] sizes = {10, 1000, 100};
            long[] bytes = new long[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                VectorSchemaRoot b = batch(allocator, sizes[i]);
                bytes[i] = SealedBatches.bufferBytes(b);
                sealed.add(b);
            }
            assertThat(sealed.pendingBytes()).isEqualTo(bytes[0] + bytes[1] + bytes[2]);
            sealed.markDurable(1, 7);
            assertThat(sealed.pendingBytes()).isEqualTo(bytes[1] + bytes[2]);
            sealed.markDurable(2, 8);
            assertThat(sealed.pendingBytes()).isZero();
            assertThat(sealed.bytes()).isEqualTo(bytes[0] + bytes[1] + bytes[2]);
        }
    }
}
