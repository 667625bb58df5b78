package io.walsink.shard.io;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.operation.Overwrite;

/**
 * Writes an SSTable's one data fragment from its rows, handing lance-core one Arrow array when the
 * rows come in one batch (the usual case of a small SSTable, whose survivors the reader gathers)
 * and a stream otherwise; and commits the new dataset that holds it.
 *
 * <p>Why not always a stream: lance-core pulls a stream's batches, and releases them, from its own
 * native threads, each pull attaching the thread to the JVM and detaching it again, and in JDK 17 a
 * detach walks every inflated monitor of the JVM. lance-core's JNI locks each of its Java objects
 * (datasets, scanners, file writers) with a JNI monitor enter, which always inflates, and the JVM
 * deflates idle monitors only about once a minute below its threshold; so a writer making hundreds
 * of SSTables a minute paid a growing walk per pull. An array is imported on the calling thread and
 * needs no callback.
 */
final class SsTableFragment {
    private SsTableFragment() {}

    /** Writes the rows {@code rows} hands out as one fragment of the dataset at {@code uri}. */
    static List<FragmentMetadata> write(ArrowReader rows, BufferAllocator allocator, String uri, WriteParams params)
            throws IOException {
        Schema schema = rows.getVectorSchemaRoot().getSchema();
        if (!rows.loadNextBatch()) {
            throw new IllegalArgumentException("no rows to write to " + uri);
        }
        // holds its own references to the buffers, so the reader may load its next batch meanwhile
        try (ArrowRecordBatch first = new VectorUnloader(rows.getVectorSchemaRoot()).getRecordBatch()) {
            if (!rows.loadNextBatch()) {
                try (VectorSchemaRoot only = VectorSchemaRoot.create(schema, allocator)) {
                    new VectorLoader(only).load(first);
                    return Fragment.create(uri, allocator, only, params);
                }
            }
            try (FirstThenRest all = new FirstThenRest(allocator, schema, first, rows);
                    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
                Data.exportArrayStream(allocator, all, stream);
                return Fragment.create(uri, stream, params);
            }
        }
    }

    /**
     * Creates the dataset at {@code uri} as version 1 holding {@code fragments}: the commit
     * lance-core's own dataset write makes (an overwrite into a new dataset, manifest paths of the
     * V2 scheme). Unlike that write's create mode, the commit does not refuse a folder that holds a
     * dataset already; the folder's random name is what keeps writers apart, and a commit that
     * finds one anyway (a name collision) fails here rather than being published.
     *
     * @throws IllegalStateException if the folder held a dataset before
     */
    static Dataset commitNew(
            String uri,
            List<FragmentMetadata> fragments,
            Schema schema,
            BufferAllocator allocator,
            Map<String, String> storageOptions) {
        Dataset created;
        try (Transaction create = new Transaction.Builder()
                .readVersion(0)
                .operation(
                        Overwrite.builder().fragments(fragments).schema(schema).build())
                .build()) {
            created = new CommitBuilder(uri, allocator)
                    .writeParams(storageOptions)
                    .enableV2ManifestPaths(true)
                    .execute(create);
        }
        if (created.version() != 1) {
            long version = created.version();
            created.close();
            throw new IllegalStateException(
                    uri + " held a dataset already: this write made its version " + version + " and is not published");
        }
        return created;
    }

    /** A batch held aside, then the reader's current batch, then the reader's remaining ones. */
    private static final class FirstThenRest extends ArrowReader {
        private final Schema schema;
        private final ArrowRecordBatch first;
        private final ArrowReader rest;
        private int handedOut;

        FirstThenRest(BufferAllocator allocator, Schema schema, ArrowRecordBatch first, ArrowReader rest) {
            super(allocator);
            this.schema = schema;
            this.first = first;
            this.rest = rest;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            prepareLoadNextBatch();
            if (handedOut == 0) {
                new VectorLoader(getVectorSchemaRoot()).load(first);
            } else if (handedOut > 1 && !rest.loadNextBatch()) {
                return false;
            } else {
                try (ArrowRecordBatch batch = new VectorUnloader(rest.getVectorSchemaRoot()).getRecordBatch()) {
                    new VectorLoader(getVectorSchemaRoot()).load(batch);
                }
            }
            handedOut++;
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
            // the first batch and the reader belong to the caller
        }

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }
}
