package io.walsink.testing;

import io.walsink.read.snapshot.RowValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;

/** Reads a Lance dataset (an SSTable or a base table) straight through lance-core, in scan order. */
public final class LanceRows {
    private LanceRows() {}

    public static List<Map<String, Object>> scan(BufferAllocator allocator, String uri, Map<String, String> options) {
        try (Dataset ds = Dataset.open(
                allocator,
                uri,
                new ReadOptions.Builder().setStorageOptions(options).build())) {
            return scan(ds);
        }
    }

    public static List<Map<String, Object>> scan(Dataset ds) {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (LanceScanner scanner = ds.newScan();
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows.addAll(all(reader.getVectorSchemaRoot()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** Every row of {@code batch} with every column, as plain values. */
    public static List<Map<String, Object>> all(VectorSchemaRoot batch) {
        List<String> columns =
                batch.getSchema().getFields().stream().map(f -> f.getName()).toList();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int r = 0; r < batch.getRowCount(); r++) {
            rows.add(RowValues.row(batch, columns, r));
        }
        return rows;
    }
}
