package io.walsink.recovery;

import io.walsink.format.ColumnsAddedLater;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorSchemaRootAppender;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The rows of several SSTables, one after the other, as one stream for one merge-insert: each
 * scanned with the same projection and its own filter (an SSTable without tombstones has no
 * tombstone column to filter on). Closing it closes the scanners; the datasets belong to the
 * caller.
 *
 * <p>Small batches (the usual SSTable of a table of many buckets holds a few thousand rows) are
 * gathered by copying into batches of up to {@link #GATHER_ROWS} rows or {@link #GATHER_BYTES}
 * bytes; a larger batch is handed on without copying its buffers. Why: lance-core releases every
 * batch of the stream on one of its own native threads, and Arrow's release of a batch exported
 * from Java attaches that thread to the JVM and detaches it again once for the batch and once for
 * each of its columns; in JDK 17 each detach walks every inflated monitor of the JVM, of which
 * lance-core's JNI leaves one per dataset and scanner it opened until the JVM deflates them, about
 * once a minute. A merge of 64 SSTables of a 13-column table was about 900 such walks.
 */
final class SsTableRows extends ArrowReader {
    /** One SSTable's part: its dataset and the filter of its rows to take, null for all. */
    record Part(Dataset sstable, String filter) {}

    /** Rows up to which batches are gathered into one. */
    static final int GATHER_ROWS = 65_536;
    /** Bytes up to which batches are gathered into one: the copy's memory. */
    static final long GATHER_BYTES = 8L << 20;

    private final List<Part> parts;
    private final List<Field> columns;
    private final BufferAllocator allocator;
    private final List<AutoCloseable> opened = new ArrayList<>(); // each scanner, then its reader
    private Schema schema;
    private ArrowReader current;
    private ColumnsAddedLater currentView; // the last source batch under every column
    private int next;
    /** A large batch read while gathering, handed on next. */
    private ArrowRecordBatch held;

    /**
     * @param columns the table's fields to read; an SSTable written before some of them were added
     *     to the table reads them as null
     */
    SsTableRows(List<Part> parts, List<Field> columns, BufferAllocator allocator) {
        super(allocator);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no SSTables to read");
        }
        this.parts = List.copyOf(parts);
        this.columns = List.copyOf(columns);
        this.allocator = allocator;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        readSchema(); // opens the first SSTable, should nothing have asked for the schema yet
        prepareLoadNextBatch();
        VectorSchemaRoot out = getVectorSchemaRoot();
        if (held != null) {
            try (ArrowRecordBatch batch = held) {
                held = null;
                new VectorLoader(out).load(batch);
            }
            return true;
        }
        VectorSchemaRoot source = nextSourceBatch();
        if (source == null) {
            return false;
        }
        if (large(source)) {
            try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
                new VectorLoader(out).load(batch);
            }
            return true;
        }
        out.clear();
        out.allocateNew(); // the appender extends the vectors' buffers, which must exist
        VectorSchemaRootAppender.append(false, out, source);
        while (!large(out)) {
            source = nextSourceBatch();
            if (source == null) {
                break;
            }
            if (large(source)) {
                held = new VectorUnloader(source).getRecordBatch();
                break;
            }
            VectorSchemaRootAppender.append(false, out, source);
        }
        return true;
    }

    private static boolean large(VectorSchemaRoot batch) {
        if (batch.getRowCount() >= GATHER_ROWS) {
            return true;
        }
        long bytes = 0;
        for (FieldVector v : batch.getFieldVectors()) {
            bytes += v.getBufferSize();
        }
        return bytes >= GATHER_BYTES;
    }

    /** The next batch of the SSTables, in their order, as their scanner's root; null after the last. */
    private VectorSchemaRoot nextSourceBatch() throws IOException {
        closeView();
        while (true) {
            if (current == null) {
                if (next == parts.size()) {
                    return null;
                }
                current = open(parts.get(next++));
            }
            if (current.loadNextBatch()) {
                String uri = parts.get(next - 1).sstable().uri();
                currentView = ColumnsAddedLater.view(current.getVectorSchemaRoot(), columns, uri);
                Schema theirs = currentView.root().getSchema();
                if (!sameColumns(theirs.getFields(), schema.getFields())) {
                    throw new IllegalStateException(
                            "SSTable " + uri + " reads as " + theirs + ", the first one as " + schema);
                }
                return currentView.root();
            }
            current = null;
        }
    }

    /** Names and types alike at every level; field metadata and nullability may differ. */
    private static boolean sameColumns(List<Field> a, List<Field> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            Field x = a.get(i);
            Field y = b.get(i);
            if (!x.getName().equals(y.getName())
                    || !x.getType().equals(y.getType())
                    || !sameColumns(x.getChildren(), y.getChildren())) {
                return false;
            }
        }
        return true;
    }

    private void closeView() {
        if (currentView != null) {
            currentView.close();
            currentView = null;
        }
    }

    private ArrowReader open(Part part) {
        // Only the columns the SSTable has: those added to the table after it was written are nulls.
        List<String> stored = part.sstable().getSchema().getFields().stream()
                .map(Field::getName)
                .toList();
        List<String> names = new ArrayList<>();
        for (Field f : columns) {
            if (stored.contains(f.getName())) {
                names.add(f.getName());
            }
        }
        ScanOptions.Builder scan = new ScanOptions.Builder().columns(names);
        if (part.filter() != null) {
            scan.filter(part.filter());
        }
        LanceScanner scanner = LanceScanner.create(part.sstable(), scan.build(), allocator);
        opened.add(scanner);
        ArrowReader reader = scanner.scanBatches();
        opened.add(reader);
        return reader;
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() throws IOException {
        if (held != null) {
            held.close();
            held = null;
        }
        closeView();
        Exception first = null;
        for (int i = opened.size() - 1; i >= 0; i--) { // each reader before its scanner
            try {
                opened.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw new IOException("closing the scanners of " + parts.size() + " SSTables failed", first);
        }
    }

    @Override
    protected Schema readSchema() throws IOException {
        if (schema == null) {
            // The first SSTable's projected schema, with the columns it lacks as the table has them.
            current = open(parts.get(next++));
            List<Field> fields = new ArrayList<>();
            Schema first = current.getVectorSchemaRoot().getSchema();
            for (Field f : columns) {
                Field stored = first.getFields().stream()
                        .filter(g -> g.getName().equals(f.getName()))
                        .findFirst()
                        .orElse(f);
                fields.add(stored);
            }
            schema = new Schema(fields, first.getCustomMetadata());
        }
        return schema;
    }
}
