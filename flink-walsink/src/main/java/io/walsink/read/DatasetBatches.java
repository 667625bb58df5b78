package io.walsink.read;

import io.walsink.format.FormatException;
import java.util.function.Consumer;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;

/** Scans a lance-core dataset in storage order, one batch at a time. */
final class DatasetBatches {
    private DatasetBatches() {}

    /** Hands every batch to {@code visitor}; the batch is valid only during the call. */
    static void forEach(Dataset ds, String location, Consumer<VectorSchemaRoot> visitor) {
        try (LanceScanner scanner = ds.newScan(); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                visitor.accept(reader.getVectorSchemaRoot());
            }
        } catch (FormatException e) {
            throw e;
        } catch (Exception e) {
            throw new FormatException(location, "cannot scan Lance dataset: " + e.getMessage(), e);
        }
    }
}
