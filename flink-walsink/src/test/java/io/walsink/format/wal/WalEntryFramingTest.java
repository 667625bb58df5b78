package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.table.PrimaryKeyMetadata;
import io.walsink.testing.AllocatorExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Corrupt length prefixes are reported as corrupt entries, not as huge allocations. */
class WalEntryFramingTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();
    private final WalStorageSchema storage = WalStorageSchema.derive(
            new Schema(List.of(
                    PrimaryKeyMetadata.markKey(Field.notNullable("id", new ArrowType.Int(64, true)), 1, false))),
            List.of("id"),
            Map.of("id", 0),
            WalSchemaProfile.LANCE_JAVA_7_0);
    private final WalEntryCodec codec = new WalEntryCodec(storage, allocator);

    @Test
    void metadataLengthBeyondTheBytes() {
        byte[] bytes = {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0x01};
        assertThatThrownBy(() -> codec.decode("wal/x", 1, bytes))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining("wal/x")
                .hasMessageContaining("2147483647");
    }

    @Test
    void bodyLengthBeyondTheBytes() {
        byte[] entry = validEntry();
        // Cut the stream inside the record batch body: the header promises more than follows.
        byte[] cut = Arrays.copyOf(entry, entry.length - 16);
        assertThatThrownBy(() -> codec.decode("wal/y", 1, cut))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining("wal/y");
    }

    @Test
    void continuationThenHugeLength() {
        byte[] bytes = ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(-1)
                .putInt(0x40000000)
                .putInt(0)
                .array();
        assertThatThrownBy(() -> codec.decode("wal/z", 1, bytes))
                .isInstanceOf(CorruptWalEntryException.class)
                .hasMessageContaining("only 4 bytes follow");
    }

    private byte[] validEntry() {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(storage.schema(), allocator)) {
            BigIntVector id = (BigIntVector) root.getVector("id");
            for (int i = 0; i < 16; i++) {
                id.setSafe(i, i);
            }
            root.setRowCount(16);
            return codec.encode(1, 1, List.of(root));
        }
    }
}
