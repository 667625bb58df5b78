package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.shard.memtable.LongKeyIndexTest;
import io.walsink.shard.memtable.Memtable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code put(batch)}, which copies ranges of columns, leaves the shard exactly as {@code write}
 * of each row does: memtables frozen at the same rows (by rows, bytes and batches), the same
 * batches in them, the same index.
 */
class ShardWriterBulkPutTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"rows", "bytes", "batches"})
    void aBatchPutFreezesWhereRowWritesFreezeAndHoldsTheSameRows(String limit) {
        long seed = LongKeyIndexTest.seed("aBatchPutFreezesWhereRowWritesFreezeAndHoldsTheSameRows " + limit);
        Random random = new Random(seed);
        ShardWriterConfig.Builder config = limitedBy(limit);
        try (ShardFixture bulkTable = new ShardFixture(dir.resolve("bulk"), WalSchemaProfile.SPEC, config.build());
                ShardFixture rowTable = new ShardFixture(dir.resolve("rows"), WalSchemaProfile.SPEC, config.build());
                ShardWriter bulk = bulkTable.open();
                ShardWriter rows = rowTable.open()) {
            for (int b = 0; b < 30; b++) {
                boolean delete = random.nextInt(6) == 0;
                int count = random.nextInt(600);
                long[] ids = new long[count];
                String[] names = new String[count];
                for (int r = 0; r < count; r++) {
                    ids[r] = random.nextInt(500) - 250;
                    names[r] = random.nextInt(5) == 0 ? null : "value " + "x".repeat(random.nextInt(40));
                }
                try (VectorSchemaRoot in = bulkTable.rows(ids, names)) {
                    if (delete) {
                        bulk.delete(in);
                    } else {
                        bulk.put(in);
                    }
                    for (int r = 0; r < count; r++) {
                        rows.write(in, r, delete);
                    }
                }
                assertThat(bulk.frozenMemtables())
                        .as("batch %d, seed %d", b, seed)
                        .isEqualTo(rows.frozenMemtables());
                assertThat(bulk.unflushedBytes())
                        .as("batch %d, seed %d", b, seed)
                        .isEqualTo(rows.unflushedBytes());
            }
            assertSameShards(bulk, rows, seed);
        }
    }

    /** The same rows written and deleted, the same memtables frozen, holding the same batches and index. */
    static void assertSameShards(ShardWriter actual, ShardWriter expected, long seed) {
        assertThat(actual.stats().rowsWritten()).isEqualTo(expected.stats().rowsWritten());
        assertThat(actual.stats().deletesWritten()).isEqualTo(expected.stats().deletesWritten());
        assertThat(expected.frozenMemtables()).as("the limit was reached").isPositive();
        List<Memtable> expectedMemtables = expected.memtables().all();
        List<Memtable> actualMemtables = actual.memtables().all();
        assertThat(actualMemtables).hasSameSizeAs(expectedMemtables);
        for (int i = 0; i < expectedMemtables.size(); i++) {
            assertThat(describe(actualMemtables.get(i)))
                    .as("memtable %d, seed %d", i, seed)
                    .isEqualTo(describe(expectedMemtables.get(i)));
        }
    }

    /** 100-row batches and a small memtable limit of rows, bytes or batches, so memtables freeze often. */
    static ShardWriterConfig.Builder limitedBy(String limit) {
        ShardWriterConfig.Builder config = ShardWriterConfig.builder().batchMaxRows(100);
        switch (limit) {
            case "rows" -> config.memtableMaxRows(700);
            case "bytes" -> config.memtableMaxBytes(24 << 10).walMaxBufferBytes(24 << 10);
            default -> config.memtableMaxBatches(3);
        }
        return config;
    }

    /** Generation, row counts, keys, index size, and every row of every sealed batch. */
    static List<String> describe(Memtable m) {
        m.sealOpenBatch();
        List<String> lines = new ArrayList<>();
        lines.add("generation " + m.generation() + " rows " + m.rows() + " keys " + m.distinctKeys() + " index bytes "
                + m.primaryKeyIndexBytes() + " payload " + m.payloadBytes());
        for (int i = 0; i < m.sealedBatchCount(); i++) {
            VectorSchemaRoot batch = m.sealedBatches().get(i);
            lines.add("batch " + i + " at " + m.batchStartRow(i));
            for (int r = 0; r < batch.getRowCount(); r++) {
                StringBuilder row = new StringBuilder();
                for (FieldVector v : batch.getFieldVectors()) {
                    row.append(v.getObject(r)).append('|');
                }
                lines.add(row.toString());
            }
        }
        return lines;
    }
}
