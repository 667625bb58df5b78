package io.walsink.shard.memtable;

import static io.walsink.shard.KeyedMemtables.KEY_LENGTH;
import static io.walsink.shard.KeyedMemtables.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.KeyedMemtables;
import io.walsink.testing.AllocatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rows an SSTable gets from a frozen memtable: the newest of each key in forward insert order,
 * with the survivors of many copied batches gathered into few batches (each batch handed to
 * lance-core costs a native thread's JNI attach and detach), whole batches still shared, and no
 * gathered batch above {@link NewestRowsReader#GATHER_ROWS} rows.
 */
class NewestRowsReaderTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void survivorsOfManySealedBatchesComeAsOneBatch() throws Exception {
        long seed = LongKeyIndexTest.seed("survivorsOfManySealedBatchesComeAsOneBatch");
        Random random = new Random(seed);
        long[] ids = new long[5_000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = random.nextInt(300);
        }
        try (Memtable m = memtable(100, ids)) {
            assertThat(m.sealedBatches()).hasSize(50);
            List<Integer> sizes = new ArrayList<>();
            List<String> rows = read(m, sizes);
            assertThat(rows).as("seed %d", seed).isEqualTo(newestInInsertOrder(ids));
            assertThat(sizes).as("seed %d", seed).containsExactly(rows.size());
        }
    }

    @Test
    void largeWholeBatchesAreSharedBetweenGatheredOnesInInsertOrder() throws Exception {
        List<Long> ids = new ArrayList<>();
        range(ids, 0, 5_000); // batch 0: keys 0-2,499 superseded by batch 3, the rest kept
        range(ids, 5_000, 10_000); // batch 1: keys 7,500-9,999 superseded by batch 3
        range(ids, 10_000, 15_000); // batch 2: all kept
        range(ids, 0, 2_500); // batch 3: all kept
        range(ids, 7_500, 10_000);
        long[] order = ids.stream().mapToLong(Long::longValue).toArray();
        try (Memtable m = memtable(5_000, order)) {
            VectorSchemaRoot batchTwo = m.sealedBatches().get(2);
            List<Integer> sizes = new ArrayList<>();
            List<Long> addresses = new ArrayList<>();
            List<String> rows = read(
                    m,
                    sizes,
                    root -> addresses.add(root.getVector(0).getDataBuffer().memoryAddress()));
            assertThat(rows).isEqualTo(newestInInsertOrder(order));
            // batches 0 and 1 have rows superseded: their survivors are copied into one batch
            assertThat(sizes).containsExactly(5_000, 5_000, 5_000);
            assertThat(addresses.get(1))
                    .as("a large batch whose rows all survive is handed over without a copy")
                    .isEqualTo(batchTwo.getVector(0).getDataBuffer().memoryAddress());
        }
    }

    @Test
    void smallWholeBatchesAreGathered() throws Exception {
        long[] ids = new long[3_000]; // every key new: each batch of 100 survives whole
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i;
        }
        try (Memtable m = memtable(100, ids)) {
            List<Integer> sizes = new ArrayList<>();
            assertThat(read(m, sizes)).isEqualTo(newestInInsertOrder(ids));
            assertThat(sizes).containsExactly(3_000);
        }
    }

    @Test
    void gatheredBatchesStayWithinTheGatherBound() throws Exception {
        // batches of 1,000 rows, every tenth row updating the key before it: 900 survivors each
        long[] ids = new long[20_000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i % 10 == 9 ? i - 1 : i;
        }
        try (Memtable m = memtable(1_000, ids)) {
            List<Integer> sizes = new ArrayList<>();
            List<String> rows = read(m, sizes);
            assertThat(rows).isEqualTo(newestInInsertOrder(ids));
            assertThat(rows).hasSize(18_000);
            assertThat(sizes).allMatch(s -> s <= NewestRowsReader.GATHER_ROWS);
            assertThat(sizes).hasSize((18_000 + 8_099) / 8_100); // 9 batches of 900 fit in 8,192 rows
        }
    }

    private static void range(List<Long> ids, long from, long to) {
        for (long i = from; i < to; i++) {
            ids.add(i);
        }
    }

    /** A frozen keyed memtable of {@code ids} in order, names "v{i}", sealed every {@code batchRows}. */
    private Memtable memtable(int batchRows, long[] ids) {
        Memtable m = KeyedMemtables.create(allocator, KeyedMemtables.ID_NAME_STORAGE, 1, batchRows, 2);
        try (VectorSchemaRoot in = VectorSchemaRoot.create(KeyedMemtables.ID_NAME, allocator)) {
            BigIntVector id = (BigIntVector) in.getVector(0);
            VarCharVector name = (VarCharVector) in.getVector(1);
            for (int i = 0; i < ids.length; i++) {
                id.setSafe(i, ids[i]);
                name.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            in.setRowCount(ids.length);
            for (int r = 0; r < ids.length; r++) {
                m.append(in, r, false, key(ids[r]), KEY_LENGTH);
            }
        }
        m.sealOpenBatch();
        m.freeze();
        return m;
    }

    /** "id=v{i}" of the newest row of each key, in the order those rows were inserted. */
    private static List<String> newestInInsertOrder(long[] ids) {
        Map<Long, Integer> newest = new LinkedHashMap<>();
        for (int i = 0; i < ids.length; i++) {
            newest.put(ids[i], i);
        }
        return newest.entrySet().stream()
                .sorted(Map.Entry.comparingByValue())
                .map(e -> e.getKey() + "=v" + e.getValue())
                .toList();
    }

    private List<String> read(Memtable m, List<Integer> sizes) throws Exception {
        return read(m, sizes, root -> {});
    }

    private List<String> read(Memtable m, List<Integer> sizes, java.util.function.Consumer<VectorSchemaRoot> observer)
            throws Exception {
        List<String> rows = new ArrayList<>();
        try (NewestRowsReader reader =
                new NewestRowsReader(allocator, m, KeyedMemtables.ID_NAME_STORAGE, false, observer)) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                sizes.add(batch.getRowCount());
                BigIntVector id = (BigIntVector) batch.getVector(0);
                VarCharVector name = (VarCharVector) batch.getVector(1);
                for (int r = 0; r < batch.getRowCount(); r++) {
                    rows.add(id.get(r) + "=" + new String(name.get(r), StandardCharsets.UTF_8));
                }
            }
            assertThat(reader.rowsRead()).isEqualTo(rows.size());
        }
        return rows;
    }
}
