package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.key.PrimaryKeyEncoder;
import io.walsink.shard.memtable.InputValidator;
import io.walsink.shard.memtable.Memtable;
import io.walsink.shard.memtable.RowKeys;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/** The engine's row path writes, through the operator's row writer, exactly the rows the batch path puts. */
class BinaryRowsTest {
    @Test
    void rowsWrittenFromBinaryRowsEqualTheBatches() {
        try (BufferAllocator allocator = new RootAllocator()) {
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, 5_000, 1_024, 700, 42);
            try (Memtable memtable = new Memtable(
                    allocator,
                    EngineBatches.SCHEMA,
                    1,
                    Memtable.DEFAULT_BATCH_MAX_ROWS,
                    -1,
                    new PrimaryKeyEncoder(List.of(EngineBatches.SCHEMA.findField(EngineBatches.KEY))),
                    RowKeys.NONE)) {
                BinaryRows rows = BinaryRows.of(batches);
                InputValidator validator = new InputValidator(EngineBatches.SCHEMA, List.of(EngineBatches.KEY));
                assertThat(rows.batches()).isEqualTo(batches.size());
                for (int b = 0; b < rows.batches(); b++) {
                    for (int r = 0; r < rows.rows(b); r++) {
                        memtable.appendRow(rows.at(b, r), false, validator);
                    }
                }
                memtable.sealOpenBatch();
                assertThat(contents(memtable.sealedBatches())).isEqualTo(contents(batches));
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    private static List<String> contents(List<VectorSchemaRoot> batches) {
        List<String> rows = new ArrayList<>();
        for (VectorSchemaRoot batch : batches) {
            for (int r = 0; r < batch.getRowCount(); r++) {
                StringBuilder row = new StringBuilder();
                for (var v : batch.getFieldVectors()) {
                    row.append(v.getObject(r)).append('|');
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }
}
