package io.walsink.bench.support;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Every row of a list of batches, batch by batch, without copying (buffers are shared, so the
 * batches must come from the reader's root allocator). Feeds lance-core "all rows" writes.
 */
public final class SealedBatchesReader extends ArrowReader {
    private final List<VectorSchemaRoot> batches;
    private final Schema schema;
    private int next;

    public SealedBatchesReader(BufferAllocator allocator, Schema schema, List<VectorSchemaRoot> batches) {
        super(allocator);
        this.schema = schema;
        this.batches = batches;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        prepareLoadNextBatch();
        if (next == batches.size()) {
            return false;
        }
        loadRecordBatch(new VectorUnloader(batches.get(next++)).getRecordBatch());
        return true;
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() {
        // the batches belong to the caller
    }

    @Override
    protected Schema readSchema() {
        return schema;
    }
}
