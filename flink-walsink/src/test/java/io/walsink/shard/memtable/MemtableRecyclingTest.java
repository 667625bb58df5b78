package io.walsink.shard.memtable;

import static io.walsink.shard.KeyedMemtables.KEY_LENGTH;
import static io.walsink.shard.KeyedMemtables.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.KeyedMemtables;
import io.walsink.shard.OffHeapAllocators;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A retired memtable's batch memory fills the next memtable's batches (no fresh pages in steady
 * state), and only once nothing reads it: an export to lance-core (the SSTable write's C Data
 * Interface) keeps its rows.
 */
class MemtableRecyclingTest {
    private static final int ROWS = 20_000;
    private static final long MEMORY = 64L << 20;

    @Test
    void theNextMemtableFillsTheMemoryOfTheOneRetiredBeforeIt() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(MEMORY, MEMORY)) {
            Set<Long> retired;
            try (Memtable first = filled(allocator, 1, 0)) {
                retired = addresses(first);
            }
            try (Memtable next = filled(allocator, 2, ROWS)) {
                // the first batch grows from a guess; the ones after it are sized from it
                assertThat(retired).containsAll(keyBuffers(next));
                assertThat(rows(next)).isEqualTo(expectedRows(ROWS));
            }
            assertThat(allocator.recycled().reusedCount()).isPositive();
        }
    }

    @Test
    void anExportedBatchKeepsItsRowsWhileTheNextMemtableFills() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(MEMORY, MEMORY);
                ArrowArray array = ArrowArray.allocateNew(allocator);
                ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
            try (Memtable first = filled(allocator, 1, 0)) {
                Data.exportVectorSchemaRoot(allocator, first.sealedBatches().get(0), null, array, schema);
            } // retired while lance-core would still be reading the batch
            try (Memtable next = filled(allocator, 2, ROWS);
                    VectorSchemaRoot exported = Data.importVectorSchemaRoot(allocator, array, schema, null)) {
                assertThat(rows(next)).isEqualTo(expectedRows(ROWS));
                assertThat(rowsOf(exported)).isEqualTo(expectedRows(0).subList(0, exported.getRowCount()));
            }
        }
    }

    @Test
    void batchesSealedByTicksReuseTheRetiredMemtablesMemoryAtAnotherRate() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(MEMORY, MEMORY)) {
            filledInTicks(allocator, 1, 0, 10_000).close();
            long freshBefore = allocator.recycled().freshCount();
            // a tick's remainder differs with the rate; the batches after it must not follow it (names of one width)
            try (Memtable next = filledInTicks(allocator, 2, 1_000_000, 10_300)) {
                assertThat(next.sealedBatches()).hasSizeGreaterThanOrEqualTo(12);
                assertThat(allocator.recycled().freshCount() - freshBefore)
                        .as("allocations of fresh memory while the second memtable filled")
                        .isZero();
            }
        }
    }

    /**
     * The memtable that follows a frozen one in its shard starts with the batch size the frozen
     * one reached (rows and string bytes per row), not with a guess it would regrow from: a shard
     * among many freezes often, and each regrowth copies the batch into fresh memory.
     */
    @Test
    void theSuccessorOfAFrozenMemtableStartsAtItsBatchSize() {
        try (OffHeapAllocators.Recycling allocator = OffHeapAllocators.root(MEMORY, MEMORY);
                Memtable first = filled(allocator, 1, 0);
                Memtable next = KeyedMemtables.create(allocator, KeyedMemtables.ID_NAME_STORAGE, 2, 4096, 2);
                VectorSchemaRoot in = VectorSchemaRoot.create(KeyedMemtables.ID_NAME, allocator)) {
            next.sizeBatchesAfter(first);
            ((BigIntVector) in.getVector(0)).setSafe(0, 7);
            ((VarCharVector) in.getVector(1)).setSafe(0, "name-7".getBytes(StandardCharsets.UTF_8));
            in.setRowCount(1);
            next.append(in, 0, false, key(7), KEY_LENGTH);
            next.sealOpenBatch();

            VectorSchemaRoot firstBatch = next.sealedBatches().get(0);
            assertThat(firstBatch.getVector(0).getValueCapacity()).as("rows").isGreaterThanOrEqualTo(4096);
            assertThat(((VarCharVector) firstBatch.getVector(1)).getDataBuffer().capacity())
                    .as("string bytes (\"name-\" and up to five digits a row)")
                    .isGreaterThanOrEqualTo(4096L * 9);
        }
    }

    /**
     * A frozen memtable of {@code 4 * rowsPerTick} rows whose ids start at {@code firstId}, written
     * row by row with the open batch sealed after every {@code rowsPerTick} rows, as the WAL
     * ticker seals it.
     */
    private static Memtable filledInTicks(BufferAllocator allocator, long generation, long firstId, int rowsPerTick) {
        Memtable m = KeyedMemtables.create(allocator, KeyedMemtables.ID_NAME_STORAGE, generation, 4096, 2);
        try (VectorSchemaRoot in = VectorSchemaRoot.create(KeyedMemtables.ID_NAME, allocator)) {
            BigIntVector id = (BigIntVector) in.getVector(0);
            VarCharVector name = (VarCharVector) in.getVector(1);
            for (int r = 0; r < 4 * rowsPerTick; r++) {
                id.setSafe(0, firstId + r);
                name.setSafe(0, String.format("name-%07d", firstId + r).getBytes(StandardCharsets.UTF_8));
                in.setRowCount(1);
                m.append(in, 0, false, key(firstId + r), KEY_LENGTH);
                if ((r + 1) % rowsPerTick == 0) {
                    m.sealOpenBatch();
                }
            }
        }
        m.freeze();
        return m;
    }

    /** A frozen memtable of {@link #ROWS} rows whose ids start at {@code firstId}, written row by row. */
    private static Memtable filled(BufferAllocator allocator, long generation, long firstId) {
        Memtable m = KeyedMemtables.create(allocator, KeyedMemtables.ID_NAME_STORAGE, generation, 4096, 2);
        try (VectorSchemaRoot in = VectorSchemaRoot.create(KeyedMemtables.ID_NAME, allocator)) {
            BigIntVector id = (BigIntVector) in.getVector(0);
            VarCharVector name = (VarCharVector) in.getVector(1);
            for (int r = 0; r < ROWS; r++) {
                id.setSafe(0, firstId + r);
                name.setSafe(0, ("name-" + (firstId + r)).getBytes(StandardCharsets.UTF_8));
                in.setRowCount(1);
                m.append(in, 0, false, key(firstId + r), KEY_LENGTH);
            }
        }
        m.freeze();
        return m;
    }

    private static Set<Long> addresses(Memtable m) {
        Set<Long> addresses = new HashSet<>();
        for (VectorSchemaRoot batch : m.sealedBatches()) {
            for (FieldVector v : batch.getFieldVectors()) {
                addresses.add(v.getDataBuffer().memoryAddress());
            }
        }
        return addresses;
    }

    /** The key column's value buffers of every batch but the first. */
    private static List<Long> keyBuffers(Memtable m) {
        List<VectorSchemaRoot> batches = m.sealedBatches();
        return batches.subList(1, batches.size()).stream()
                .map(b -> b.getVector(0).getDataBuffer().memoryAddress())
                .toList();
    }

    private static List<String> rows(Memtable m) {
        List<String> rows = new ArrayList<>();
        m.sealedBatches().forEach(b -> rows.addAll(rowsOf(b)));
        return rows;
    }

    private static List<String> rowsOf(VectorSchemaRoot batch) {
        List<String> rows = new ArrayList<>();
        BigIntVector id = (BigIntVector) batch.getVector(0);
        VarCharVector name = (VarCharVector) batch.getVector(1);
        for (int r = 0; r < batch.getRowCount(); r++) {
            rows.add(id.get(r) + "=" + new String(name.get(r), StandardCharsets.UTF_8));
        }
        return rows;
    }

    private static List<String> expectedRows(long firstId) {
        List<String> rows = new ArrayList<>();
        for (long r = 0; r < ROWS; r++) {
            rows.add((firstId + r) + "=name-" + (firstId + r));
        }
        return rows;
    }
}
