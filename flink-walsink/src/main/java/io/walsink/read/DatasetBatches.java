package io.walsink.read;

import io.walsink.format.FormatException;
import io.walsink.format.table.LanceFailures;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;

/** Scans a lance-core dataset in storage order, one batch at a time. */
final class DatasetBatches {
    private DatasetBatches() {}

    /**
     * Hands every batch to {@code visitor}; the batch is valid only during the call.
     *
     * @param storageOptions the lance-core options the dataset was opened with, for messages
     */
    static void forEach(
            Dataset ds, String location, Map<String, String> storageOptions, Consumer<VectorSchemaRoot> visitor) {
        try (LanceScanner scanner = ds.newScan();
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                visitor.accept(reader.getVectorSchemaRoot());
            }
        } catch (FormatException e) {
            throw e;
        } catch (Exception e) {
            if (LanceFailures.isS3Failure(location, e)) {
                throw LanceFailures.wrap(location, "scanning the Lance dataset", storageOptions, e);
            }
            throw new FormatException(location, "cannot scan Lance dataset: " + e.getMessage(), e);
        }
    }
}
