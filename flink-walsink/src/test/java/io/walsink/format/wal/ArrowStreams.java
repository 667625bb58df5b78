package io.walsink.format.wal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/** Raw Arrow IPC streams for tests: entries the codec would never write, and their schema. */
final class ArrowStreams {
    private ArrowStreams() {}

    /** A stream with {@code schema} (metadata replaced by {@code metadata}) holding {@code batches}. */
    static byte[] write(
            BufferAllocator allocator, Schema schema, Map<String, String> metadata, List<VectorSchemaRoot> batches) {
        Schema withMetadata = new Schema(schema.getFields(), metadata);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot staging = VectorSchemaRoot.create(withMetadata, allocator);
                ArrowStreamWriter writer = new ArrowStreamWriter(staging, null, Channels.newChannel(out))) {
            writer.start();
            for (VectorSchemaRoot batch : batches) {
                try (ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
                    new VectorLoader(staging).load(record);
                }
                writer.writeBatch();
            }
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The schema (with metadata) at the start of a stream. */
    static Schema schemaOf(BufferAllocator allocator, byte[] stream) {
        try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(stream), allocator)) {
            return reader.getVectorSchemaRoot().getSchema();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
