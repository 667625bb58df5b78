package io.walsink.format.wal;

import io.walsink.annotation.Internal;
import io.walsink.format.ColumnsAddedLater;
import io.walsink.format.FormatException;
import io.walsink.storage.ByteArrayChannel;
import io.walsink.storage.ObjectContent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.apache.arrow.vector.validate.ValidateVectorBufferVisitor;

/**
 * Encodes the batches of one memtable as one WAL entry (an Arrow IPC stream, each batch its own
 * record batch) and decodes entries back, validating them against the shard's storage schema.
 * Decoding never skips a problem: anything it cannot fully account for is an exception.
 */
@Internal
public final class WalEntryCodec {
    /** Arrow IPC end-of-stream marker: continuation token, then a zero length. */
    private static final byte[] END_OF_STREAM = {-1, -1, -1, -1, 0, 0, 0, 0};
    /** Pre-1.0 end-of-stream marker: a bare zero length. */
    private static final byte[] LEGACY_END_OF_STREAM = {0, 0, 0, 0};

    private final WalStorageSchema storage;
    private final BufferAllocator allocator;

    /** @param allocator allocates the decoded batches (and encoding scratch space) */
    public WalEntryCodec(WalStorageSchema storage, BufferAllocator allocator) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.allocator = Objects.requireNonNull(allocator, "allocator");
    }

    public WalStorageSchema storageSchema() {
        return storage;
    }

    /**
     * One entry holding {@code batches} (zero-row batches are left out). {@code generation} is
     * recorded only by profiles that carry it. The caller keeps ownership of {@code batches}.
     */
    public byte[] encode(long writerEpoch, long generation, List<VectorSchemaRoot> batches) {
        return ByteArrayChannel.collect(entry(writerEpoch, generation, batches));
    }

    /**
     * As {@link #encode}, as content a store writes where the entry goes (a local file) without
     * an array of the whole entry: the batches are checked now and encoded at each
     * {@link ObjectContent#writeTo}. The caller keeps ownership of {@code batches} and keeps
     * them until the put is done.
     */
    public Entry entry(long writerEpoch, long generation, List<VectorSchemaRoot> batches) {
        requirePositive("writer epoch", writerEpoch);
        requirePositive("generation", generation);
        for (int i = 0; i < batches.size(); i++) {
            VectorSchemaRoot batch = batches.get(i);
            Schema batchSchema = batch.getSchema();
            if (!storage.hasTombstone()
                    && batchSchema.getFields().stream()
                            .anyMatch(f -> f.getName().equals(WalStorageSchema.TOMBSTONE))) {
                storage.requireDeletes();
            }
            WalSchemaCheck.requireMatch("batch " + i + " of a new WAL entry", storage.schema(), batchSchema);
            requireNoNullsInNonNullableColumns(i, batch);
        }
        if (batches.stream().allMatch(b -> b.getRowCount() == 0)) {
            throw new IllegalArgumentException("a WAL entry needs at least one non-empty batch");
        }
        Map<String, String> metadata = new LinkedHashMap<>(storage.schema().getCustomMetadata());
        metadata.put(WalEntryMetadata.WRITER_EPOCH, Long.toString(writerEpoch));
        if (storage.profile().hasSpecMetadata()) {
            metadata.put(WalEntryMetadata.GENERATION, Long.toString(generation));
        }
        return new Entry(new Schema(storage.schema().getFields(), metadata), List.copyOf(batches));
    }

    /** One WAL entry's bytes, encoded whenever they are written; {@link #bytes} counts the last writing. */
    public final class Entry implements ObjectContent {
        private final Schema schema;
        private final List<VectorSchemaRoot> batches;
        private volatile long bytes = -1;

        private Entry(Schema schema, List<VectorSchemaRoot> batches) {
            this.schema = schema;
            this.batches = batches;
        }

        @Override
        public void writeTo(WritableByteChannel out) throws IOException {
            try (VectorSchemaRoot staging = VectorSchemaRoot.create(schema, allocator);
                    ArrowStreamWriter writer = new ArrowStreamWriter(staging, null, new KeptOpen(out))) {
                writer.start();
                VectorLoader loader = new VectorLoader(staging);
                for (VectorSchemaRoot batch : batches) {
                    if (batch.getRowCount() == 0) {
                        continue;
                    }
                    try (ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
                        loader.load(record);
                    }
                    writer.writeBatch();
                }
                writer.end();
                bytes = writer.bytesWritten();
            }
        }

        /** Sized for the whole entry up front: grown by doubling, an array copied the entry's bytes once per doubling. */
        @Override
        public long expectedBytes() {
            return estimatedBytes(batches);
        }

        /** Bytes of the entry as last written, or -1 before it was. */
        public long bytes() {
            return bytes;
        }
    }

    /** The caller's channel, left open when Arrow's writer closes: the caller closes its own. */
    private record KeptOpen(WritableByteChannel out) implements WritableByteChannel {
        @Override
        public int write(ByteBuffer src) throws IOException {
            return out.write(src);
        }

        @Override
        public boolean isOpen() {
            return out.isOpen();
        }

        @Override
        public void close() {}
    }

    /** Buffer bytes plus room for the schema, the message headers and each buffer's padding. */
    private static int estimatedBytes(List<VectorSchemaRoot> batches) {
        long bytes = 4096;
        for (VectorSchemaRoot batch : batches) {
            bytes += 1024;
            for (FieldVector vector : batch.getFieldVectors()) {
                bytes += vector.getBufferSize() + 64;
            }
        }
        return (int) Math.min(bytes, Integer.MAX_VALUE - 16);
    }

    /** Readers (lance-core included) reject such an entry, so it must never be appended. */
    private void requireNoNullsInNonNullableColumns(int index, VectorSchemaRoot batch) {
        for (FieldVector vector : batch.getFieldVectors()) {
            if (!vector.getField().isNullable() && vector.getNullCount() > 0) {
                throw new IllegalArgumentException("batch " + index + " of a new WAL entry: column '" + vector.getName()
                        + "' is NOT NULL but holds " + vector.getNullCount() + " nulls");
            }
        }
    }

    /** A fence sentinel: no fields, no batches, {@code fence_sentinel = "true"}. */
    public byte[] encodeSentinel(long writerEpoch) {
        requirePositive("writer epoch", writerEpoch);
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put(WalEntryMetadata.WRITER_EPOCH, Long.toString(writerEpoch));
        metadata.put(WalEntryMetadata.FENCE_SENTINEL, "true");
        ByteArrayChannel out = new ByteArrayChannel(256);
        try (VectorSchemaRoot empty = VectorSchemaRoot.create(new Schema(List.of(), metadata), allocator);
                ArrowStreamWriter writer = new ArrowStreamWriter(empty, null, out)) {
            writer.start();
            writer.end();
        } catch (IOException e) {
            throw new IllegalStateException("encoding a fence sentinel in memory failed", e);
        }
        return out.toArray();
    }

    /**
     * Decodes the entry at {@code position} read from {@code location}. The returned entry owns
     * its batches; close it.
     *
     * @throws CorruptWalEntryException bytes that are not one complete Arrow IPC stream, or
     *     metadata without a numeric writer epoch
     * @throws WalSchemaMismatchException columns that differ from the storage schema
     */
    public WalEntry decode(String location, long position, byte[] bytes) {
        IpcFraming.check(location, bytes);
        List<VectorSchemaRoot> batches = new ArrayList<>();
        // Read straight from the array: a stream's channel copies each buffer twice (8 KiB at a time).
        ByteArrayReadableSeekableByteChannel in = new ByteArrayReadableSeekableByteChannel(bytes);
        try (ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            Schema schema = root.getSchema();
            Map<String, String> metadata = schema.getCustomMetadata();
            long epoch = parseCounter(location, metadata, WalEntryMetadata.WRITER_EPOCH)
                    .orElseThrow(() -> new CorruptWalEntryException(
                            location, "no " + WalEntryMetadata.WRITER_EPOCH + " in the entry's schema metadata", null));
            OptionalLong generation = parseCounter(location, metadata, WalEntryMetadata.GENERATION);
            boolean sentinel = "true".equals(metadata.get(WalEntryMetadata.FENCE_SENTINEL));
            if (sentinel && !schema.getFields().isEmpty()) {
                throw new CorruptWalEntryException(location, "fence sentinel with fields " + schema.getFields(), null);
            }
            boolean older = false; // written before columns were added to the table
            if (!sentinel) {
                older = WalSchemaCheck.requireReadable(location, storage.schema(), schema);
            }
            while (true) {
                int remaining = bytes.length - (int) in.position();
                if (!reader.loadNextBatch()) {
                    requireEndOfStream(location, bytes, remaining);
                    break;
                }
                if (sentinel) {
                    throw new CorruptWalEntryException(location, "fence sentinel holds a record batch", null);
                }
                if (root.getRowCount() > 0) {
                    VectorSchemaRoot copy = copyOf(root);
                    batches.add(older ? ColumnsAddedLater.adopt(copy, storage.schema(), location) : copy);
                }
            }
            return new WalEntry(position, epoch, generation, sentinel, batches);
        } catch (FormatException e) {
            closeQuietly(batches, e);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(batches, e);
            throw new CorruptWalEntryException(
                    location, "not a complete Arrow IPC stream (" + bytes.length + " bytes): " + e, e);
        }
    }

    private VectorSchemaRoot copyOf(VectorSchemaRoot root) {
        VectorSchemaRoot copy = VectorSchemaRoot.create(root.getSchema(), allocator);
        try (ArrowRecordBatch record = new VectorUnloader(root).getRecordBatch()) {
            new VectorLoader(copy).load(record);
            // IPC carries no checksum; at least buffer sizes must fit the lengths they claim.
            // (validateFull would also check offsets, but Arrow 18.3 throws on fixed-size lists.)
            for (FieldVector vector : copy.getFieldVectors()) {
                if (holdsMap(vector.getField())) {
                    // Arrow 18.3's type check wants a List type on a MapVector; check the buffers alone.
                    vector.accept(new ValidateVectorBufferVisitor(), null);
                } else {
                    ValueVectorUtility.validate(vector);
                }
            }
            return copy;
        } catch (RuntimeException e) {
            copy.close();
            throw e;
        }
    }

    private static boolean holdsMap(Field field) {
        return field.getType() instanceof ArrowType.Map
                || field.getChildren().stream().anyMatch(WalEntryCodec::holdsMap);
    }

    /** The reader stops both at the end-of-stream marker and at a truncation; only the first is valid. */
    private static void requireEndOfStream(String location, byte[] bytes, int remaining) {
        byte[] tail = Arrays.copyOfRange(bytes, bytes.length - remaining, bytes.length);
        if (!Arrays.equals(tail, END_OF_STREAM) && !Arrays.equals(tail, LEGACY_END_OF_STREAM)) {
            throw new CorruptWalEntryException(
                    location,
                    "truncated: no end-of-stream marker after the last " + "message (" + remaining + " trailing bytes)",
                    null);
        }
    }

    private static OptionalLong parseCounter(String location, Map<String, String> metadata, String key) {
        String value = metadata.get(key);
        if (value == null) {
            return OptionalLong.empty();
        }
        try {
            if (!value.matches("[0-9]{1,19}")) {
                throw new NumberFormatException("not a decimal number");
            }
            return OptionalLong.of(Long.parseLong(value));
        } catch (NumberFormatException e) {
            throw new CorruptWalEntryException(location, key + " is '" + value + "', not a decimal number", e);
        }
    }

    private static void requirePositive(String what, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, got " + value);
        }
    }

    private static void closeQuietly(List<VectorSchemaRoot> batches, Exception primary) {
        try {
            AutoCloseables.close(batches);
        } catch (Exception e) {
            primary.addSuppressed(e);
        }
    }
}
