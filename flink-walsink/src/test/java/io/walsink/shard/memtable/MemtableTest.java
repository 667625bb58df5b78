package io.walsink.shard.memtable;

import static io.walsink.shard.KeyedMemtables.KEY_LENGTH;
import static io.walsink.shard.KeyedMemtables.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.shard.KeyedMemtables;
import io.walsink.shard.OffHeapAllocators;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemtableTest {
    private static final Schema TABLE = KeyedMemtables.ID_NAME;
    private static final Schema STORAGE = KeyedMemtables.ID_NAME_STORAGE;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    private VectorSchemaRoot input(long[] ids, String[] names) {
        VectorSchemaRoot root = VectorSchemaRoot.create(TABLE, allocator);
        BigIntVector id = (BigIntVector) root.getVector(0);
        VarCharVector name = (VarCharVector) root.getVector(1);
        for (int i = 0; i < ids.length; i++) {
            id.setSafe(i, ids[i]);
            if (names[i] != null) {
                name.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(ids.length);
        return root;
    }

    private static void appendAll(Memtable m, VectorSchemaRoot in, boolean tombstone) {
        BigIntVector id = (BigIntVector) in.getVector(0);
        for (int r = 0; r < in.getRowCount(); r++) {
            m.append(in, r, tombstone, key(id.get(r)), KEY_LENGTH);
        }
    }

    @Test
    void rowsAreCopiedIntoSealedBatchesWithTheTombstoneFlag() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 2, 2);
                VectorSchemaRoot in = input(new long[] {1, 2, 3}, new String[] {"a", null, "c"})) {
            appendAll(m, in, false);
            m.append(in, 1, true, key(2), KEY_LENGTH);
            m.sealOpenBatch();
            assertThat(m.sealedBatches()).hasSize(2);
            VectorSchemaRoot second = m.sealedBatches().get(1);
            assertThat(second.getRowCount()).isEqualTo(2);
            assertThat(((BigIntVector) second.getVector(0)).get(1)).isEqualTo(2);
            assertThat(second.getVector(1).isNull(1)).isTrue();
            assertThat(((BitVector) second.getVector(2)).get(1)).isEqualTo(1);
            assertThat(((BitVector) second.getVector(2)).get(0)).isEqualTo(0);
            assertThat(m.batchStartRow(1)).isEqualTo(2);
        }
    }

    @Test
    void newestRowPerKeyIsTracked() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 100, 2);
                VectorSchemaRoot in = input(new long[] {7, 8, 7}, new String[] {"old", "x", "new"})) {
            appendAll(m, in, false);
            assertThat(m.isNewest(0, key(7), KEY_LENGTH)).isFalse();
            assertThat(m.isNewest(2, key(7), KEY_LENGTH)).isTrue();
            assertThat(m.isNewest(1, key(8), KEY_LENGTH)).isTrue();
            assertThat(m.distinctKeys()).isEqualTo(2);
        }
    }

    @Test
    void visibleRowsFollowTheSlowerOfTheTwoCursors() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 2, 2);
                VectorSchemaRoot in = input(new long[] {1, 2, 3}, new String[] {"a", "b", "c"})) {
            appendAll(m, in, false);
            assertThat(m.indexedRows()).isEqualTo(3);
            assertThat(m.visibleRows()).isZero();
            assertThat(m.pendingBatches()).hasSize(1);
            m.markDurable(1, 5);
            assertThat(m.visibleRows()).isEqualTo(2);
            assertThat(m.hasPendingRows()).isTrue();
            m.sealOpenBatch();
            m.markDurable(1, 6);
            assertThat(m.visibleRows()).isEqualTo(3);
            assertThat(m.hasPendingRows()).isFalse();
            assertThat(m.firstWalPosition()).isEqualTo(5);
            assertThat(m.lastWalPosition()).isEqualTo(6);
        }
    }

    @Test
    void pendingBytesCountTheOpenBatch() {
        try (Memtable m = KeyedMemtables.create(allocator, STORAGE, 1, 1000, 2);
                VectorSchemaRoot in = input(new long[] {1, 2}, new String[] {"aaaa", "bbbb"})) {
            assertThat(m.pendingBytes()).isZero();
            appendAll(m, in, false);
            assertThat(m.pendingBytes()).isPositive();
            m.append(in, 0, false, key(1), KEY_LENGTH); // appending after a size query keeps working
            m.sealOpenBatch();
            assertThat(m.sealedBatches().get(0).getRowCount()).isEqualTo(3);
            assertThat(((VarCharVector) m.sealedBatches().get(0).getVector(1))
                            .getObject(2)
                            .toString())
                    .isEqualTo("aaaa");
        }
    }

    @Test
    void frozenMemtableRefusesRowsAndProfileWithoutTombstoneRefusesDeletes() {
        Schema noTombstone = TABLE;
        try (Memtable m = KeyedMemtables.create(allocator, noTombstone, 1, 10, -1);
                VectorSchemaRoot in = input(new long[] {1}, new String[] {"a"})) {
            assertThatThrownBy(() -> m.append(in, 0, true, key(1), KEY_LENGTH))
                    .hasMessageContaining("deletes are not supported");
            m.append(in, 0, false, key(1), KEY_LENGTH);
            m.freeze();
            assertThat(m.isFrozen()).isTrue();
            assertThatThrownBy(() -> m.append(in, 0, false, key(1), KEY_LENGTH)).hasMessageContaining("frozen");
        }
    }

    @Test
    void aBatchIsSizedForTheStringBytesOfTheBatchBeforeIt() {
        // Writer allocators round to 1 KiB, so a data buffer sized for its strings stays close to
        // them; grown by doubling from Arrow's default 8 bytes a value, it ends at 64 KiB for 40 KiB.
        try (BufferAllocator rounded = OffHeapAllocators.root(64L << 20);
                Memtable m = KeyedMemtables.create(rounded, STORAGE, 1, 1024, 2)) {
            String forty = "x".repeat(40);
            long[] ids = new long[1024];
            String[] names = new String[1024];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = i;
                names[i] = forty;
            }
            try (VectorSchemaRoot in = input(ids, names)) {
                appendAll(m, in, false); // sealed at 1024 rows
                appendAll(m, in, false);
            }
            assertThat(m.sealedBatches()).hasSize(2);
            VarCharVector first = (VarCharVector) m.sealedBatches().get(0).getVector(1);
            VarCharVector second = (VarCharVector) m.sealedBatches().get(1).getVector(1);
            long used = 1024L * 40;
            assertThat(first.getDataBuffer().capacity())
                    .as("first batch: doubled")
                    .isGreaterThan(used * 3 / 2);
            assertThat(second.getDataBuffer().capacity())
                    .as("second batch: sized from the first")
                    .isBetween(used, used * 5 / 4);
        }
    }
}
