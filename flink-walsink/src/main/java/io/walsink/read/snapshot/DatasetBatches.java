package io.walsink.read.snapshot;

import io.walsink.annotation.Internal;
import io.walsink.format.FormatException;
import io.walsink.format.table.LanceFailures;
import io.walsink.format.table.TableLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Scans a lance-core dataset in storage order, one batch at a time. */
@Internal
public final class DatasetBatches {
    private static final String ROW_ID = "_rowid";

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
        try {
            if (scanOptions != null && filteredRowsLoseStructNulls(ds.getSchema(), scanOptions)) {
                takeFiltered(ds, scanOptions, scans, visitor);
                return;
            }
            try (LanceScanner scanner = scanOptions == null ? ds.newScan() : ds.newScan(scanOptions);
                    ArrowReader reader = scanner.scanBatches()) {
                while (reader.loadNextBatch()) {
                    visitor.accept(reader.getVectorSchemaRoot());
                }
                addStats(scanner, scans);
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

    /**
     * Whether lance-core 7.0.0 would read the rows {@code options} filter with their struct
     * values wrong: a filtered scan of a dataset with a struct column (a ROW, or an ARRAY of ROW)
     * reads a null struct as a struct of nulls and a null list of structs as an empty list, while
     * a plain scan and a take by row id read them right. Such filters are answered by a filtered
     * scan of one plain column for the row ids, then a take of those rows ({@link #takeFiltered}).
     */
    public static boolean filteredRowsLoseStructNulls(Schema schema, ScanOptions options) {
        return options.getFilter().isPresent()
                && options.getNearest().isEmpty()
                && options.getFullTextQuery().isEmpty()
                && holdsStruct(schema);
    }

    /** Whether a column of {@code schema} is or holds a struct (see {@link #filteredRowsLoseStructNulls}). */
    public static boolean holdsStruct(Schema schema) {
        return schema.getFields().stream().anyMatch(DatasetBatches::holdsStruct);
    }

    private static boolean holdsStruct(Field field) {
        return field.getType() instanceof ArrowType.Struct
                || field.getChildren().stream().anyMatch(DatasetBatches::holdsStruct);
    }

    private static void takeFiltered(
            Dataset ds, ScanOptions options, LookupScans scans, Consumer<VectorSchemaRoot> visitor) throws Exception {
        Schema schema = ds.getSchema();
        String plain = schema.getFields().stream()
                .filter(f -> f.getChildren().isEmpty())
                .map(Field::getName)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no column without children to filter on in " + schema));
        List<Long> rowIds = new ArrayList<>();
        ScanOptions ids = new ScanOptions.Builder(options)
                .columns(List.of(plain))
                .withRowId(true)
                .build();
        try (LanceScanner scanner = ds.newScan(ids);
                ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                UInt8Vector rowId = (UInt8Vector) reader.getVectorSchemaRoot().getVector(ROW_ID);
                for (int i = 0; i < rowId.getValueCount(); i++) {
                    rowIds.add(rowId.get(i));
                }
            }
            addStats(scanner, scans);
        }
        if (rowIds.isEmpty()) {
            return;
        }
        List<String> columns = options.getColumns()
                .orElseGet(() -> schema.getFields().stream().map(Field::getName).toList());
        try (ArrowReader rows = ds.takeRows(rowIds, columns)) {
            while (rows.loadNextBatch()) {
                visitor.accept(rows.getVectorSchemaRoot());
            }
        }
    }

    private static void addStats(LanceScanner scanner, LookupScans scans) {
        if (scans != null) {
            // Known once the stream is read to its end.
            scanner.getStats().ifPresent(stats -> scans.add(stats.getAllCounts().getOrDefault("rows_scanned", 0L)));
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
