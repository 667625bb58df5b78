package io.walsink.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.testing.AllocatorExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentOperation;
import org.lance.ReadOptions;
import org.lance.WriteParams;

/**
 * The merge stream of several SSTables: every row each filter keeps, SSTable after SSTable in
 * their order, small SSTables gathered into few batches (each batch lance-core releases costs a JNI
 * attach and detach per column), a large batch handed on as it is.
 */
class SsTableRowsTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)),
            Field.notNullable("_tombstone", ArrowType.Bool.INSTANCE),
            Field.nullable("payload", ArrowType.Binary.INSTANCE)));

    @TempDir
    Path dir;

    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void smallSsTablesAreGatheredAndALargeOneHandedOnInOrder() throws Exception {
        List<Dataset> sstables = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        try {
            long id = 0;
            int[] sizes = {2_000, 3_000, 1_000, 200, 500, 700};
            // the fourth SSTable's one batch, of 64 KiB values, is above the gathering's byte bound
            int[] payloads = {8, 8, 8, 64 << 10, 8, 8};
            for (int s = 0; s < sizes.length; s++) {
                sstables.add(sstable("s" + s, id, sizes[s], payloads[s]));
                for (long i = id; i < id + sizes[s]; i++) {
                    if (i % 7 != 0) { // every seventh row is a tombstone, filtered out
                        expected.add(i);
                    }
                }
                id += sizes[s];
            }
            List<SsTableRows.Part> parts = sstables.stream()
                    .map(d -> new SsTableRows.Part(d, "_tombstone = false"))
                    .toList();
            List<Long> ids = new ArrayList<>();
            List<Integer> batches = new ArrayList<>();
            try (SsTableRows rows = new SsTableRows(parts, fields(sstables.get(0), "id", "payload"), allocator)) {
                while (rows.loadNextBatch()) {
                    VectorSchemaRoot batch = rows.getVectorSchemaRoot();
                    batches.add(batch.getRowCount());
                    BigIntVector v = (BigIntVector) batch.getVector("id");
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        ids.add(v.get(r));
                    }
                }
            }
            assertThat(ids).isEqualTo(expected);
            // the three small SSTables in one batch, the large one's as it is, the last two in one
            assertThat(batches).containsExactly(rowsKept(0, 6_000), rowsKept(6_000, 200), rowsKept(6_200, 1_200));
        } finally {
            sstables.forEach(Dataset::close);
        }
    }

    @Test
    void gatheredBatchesStopAtTheRowBound() throws Exception {
        List<Dataset> sstables = new ArrayList<>();
        try {
            int each = 10_000;
            int count = 20;
            for (int s = 0; s < count; s++) {
                sstables.add(sstable("s" + s, (long) s * each, each, 8));
            }
            List<Integer> batches = new ArrayList<>();
            long total = 0;
            try (SsTableRows rows = new SsTableRows(
                    sstables.stream().map(d -> new SsTableRows.Part(d, null)).toList(),
                    fields(sstables.get(0), "id"),
                    allocator)) {
                while (rows.loadNextBatch()) {
                    batches.add(rows.getVectorSchemaRoot().getRowCount());
                    total += rows.getVectorSchemaRoot().getRowCount();
                }
            }
            assertThat(total).isEqualTo((long) each * count);
            // every batch but the last holds the bound and at most one SSTable's batch more
            for (int b = 0; b < batches.size() - 1; b++) {
                assertThat(batches.get(b)).isBetween(SsTableRows.GATHER_ROWS, SsTableRows.GATHER_ROWS + each);
            }
            assertThat(batches).hasSizeLessThanOrEqualTo((int) Math.ceil((double) total / SsTableRows.GATHER_ROWS));
        } finally {
            sstables.forEach(Dataset::close);
        }
    }

    private static int rowsKept(long from, int count) {
        int kept = 0;
        for (long i = from; i < from + count; i++) {
            kept += i % 7 != 0 ? 1 : 0;
        }
        return kept;
    }

    /**
     * A one-fragment dataset of ids {@code [first, first + rows)}, every seventh a tombstone, each
     * with a payload of {@code payloadBytes}.
     */
    private Dataset sstable(String name, long first, int rows, int payloadBytes) throws Exception {
        String uri = dir.resolve(name).toString();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            BigIntVector id = (BigIntVector) root.getVector(0);
            BitVector tombstone = (BitVector) root.getVector(1);
            VarBinaryVector payload = (VarBinaryVector) root.getVector(2);
            id.allocateNew(rows);
            tombstone.allocateNew(rows);
            payload.allocateNew((long) rows * payloadBytes, rows);
            byte[] value = new byte[payloadBytes];
            for (int r = 0; r < rows; r++) {
                id.set(r, first + r);
                tombstone.set(r, (first + r) % 7 == 0 ? 1 : 0);
                payload.setSafe(r, value);
            }
            root.setRowCount(rows);
            var fragments = Fragment.create(
                    uri,
                    allocator,
                    root,
                    new WriteParams.Builder()
                            .withMaxRowsPerFile(Integer.MAX_VALUE)
                            .build());
            new FragmentOperation.Overwrite(fragments, SCHEMA)
                    .commit(allocator, uri, Optional.empty(), Map.of())
                    .close();
        }
        return Dataset.open(allocator, uri, new ReadOptions.Builder().build());
    }

    private static List<org.apache.arrow.vector.types.pojo.Field> fields(Dataset ds, String... names) {
        return java.util.Arrays.stream(names).map(ds.getSchema()::findField).toList();
    }
}
