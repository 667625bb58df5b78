package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.TableLocation;
import java.util.function.Consumer;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Scans a lance-core dataset in storage order, one batch at a time. */
@Internal
public final class DatasetBatches {
    private DatasetBatches() {}

    /**
     * Hands every batch to {@code visitor}; the batch is valid only during the call.
     *
     * @param table the table the dataset belongs to (opened with its lance-core options), for messages
     */
    public static void forEach(Dataset ds, String location, TableLocation table, Consumer<VectorSchemaRoot> visitor) {
        forEach(ds, location, table, null, visitor);
    }

    /**
     * As {@link #forEach(Dataset, String, TableLocation, Consumer)}, the rows lance-core keeps for {@code
     * filter} (a Lance SQL predicate; null for every row): lance-core answers it from a scalar
     * index on the filtered column where the dataset has one, and otherwise skips what its
     * statistics rule out, so a key lookup need not read the whole dataset.
     */
    public static void forEach(
            Dataset ds, String location, TableLocation table, String filter, Consumer<VectorSchemaRoot> visitor) {
        forEach(ds, location, table, filter, null, visitor);
    }

    /** As above, adding lance-core's statistics of the scan to {@code scans} (null: none collected). */
    public static void forEach(
            Dataset ds,
            String location,
            TableLocation table,
            String filter,
            LookupScans scans,
            Consumer<VectorSchemaRoot> visitor) {
        forEach(ds, location, table, filter == null && scans == null ? null : options(filter, scans), scans, visitor);
    }

    /** As above, with lance-core's scan options (null: every row, every column). */
    public static void forEach(
            Dataset ds,
            String location,
            TableLocation table,
            ScanOptions scanOptions,
            LookupScans scans,
            Consumer<VectorSchemaRoot> visitor) {
        try (LanceScanner scanner = scanOptions == null ? ds.newScan() : ds.newScan(scanOptions);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                visitor.accept(reader.getVectorSchemaRoot());
            }
            if (scans != null) {
                // Known once the stream is read to its end.
                scanner.getStats()
                        .ifPresent(stats -> scans.add(stats.getAllCounts().getOrDefault("rows_scanned", 0L)));
            }
        } catch (FormatException e) {
            throw e;
        } catch (Exception e) {
            if (LanceFailures.isS3Failure(location, e)) {
                throw table.failure(location, "scanning the Lance dataset", e);
            }
            throw new FormatException(location, "cannot scan Lance dataset: " + e.getMessage(), e);
        }
    }

    private static ScanOptions options(String filter, LookupScans scans) {
        ScanOptions.Builder options = new ScanOptions.Builder().collectStats(scans != null);
        if (filter != null) {
            options.filter(filter).useScalarIndex(true);
        }
        return options.build();
    }
}
