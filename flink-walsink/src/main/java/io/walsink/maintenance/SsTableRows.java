package io.walsink.maintenance;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The rows of several SSTables, one after the other, as one stream for one merge-insert: each
 * scanned with the same projection and its own filter (an SSTable without tombstones has no
 * tombstone column to filter on). Batches are handed on without copying their buffers. Closing it
 * closes the scanners; the datasets belong to the caller.
 */
final class SsTableRows extends ArrowReader {
    /** One SSTable's part: its dataset and the filter of its rows to take, null for all. */
    record Part(Dataset sstable, String filter) {}

    private final List<Part> parts;
    private final List<String> columns;
    private final BufferAllocator allocator;
    private final List<AutoCloseable> opened = new ArrayList<>(); // each scanner, then its reader
    private Schema schema;
    private ArrowReader current;
    private int next;

    SsTableRows(List<Part> parts, List<String> columns, BufferAllocator allocator) {
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
        while (true) {
            if (current == null) {
                if (next == parts.size()) {
                    return false;
                }
                current = open(parts.get(next++));
                Schema theirs = current.getVectorSchemaRoot().getSchema();
                if (!theirs.equals(schema)) {
                    throw new IllegalStateException(
                            "SSTable " + parts.get(next - 1).sstable().uri() + " reads as " + theirs
                                    + ", the first one as " + schema);
                }
            }
            if (current.loadNextBatch()) {
                try (ArrowRecordBatch batch = new VectorUnloader(current.getVectorSchemaRoot()).getRecordBatch()) {
                    new VectorLoader(getVectorSchemaRoot()).load(batch);
                }
                return true;
            }
            current = null;
        }
    }

    private ArrowReader open(Part part) {
        ScanOptions.Builder scan = new ScanOptions.Builder().columns(columns);
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
            // The first SSTable's projected schema, which every other one must read as.
            current = open(parts.get(next++));
            schema = current.getVectorSchemaRoot().getSchema();
        }
        return schema;
    }
}
