package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.testing.AllocatorExtension;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An entry encoded into Arrow memory holds the bytes the heap encoding holds, grows past a short
 * expectation, survives the stream writer closing its channel, and gives its memory back.
 */
class DirectEntryBytesTest {
    @RegisterExtension
    final AllocatorExtension allocators = new AllocatorExtension();

    private final BufferAllocator allocator = allocators.allocator();

    @Test
    void theDirectEncodingHoldsTheHeapEncodingsBytes() {
        for (WalSchemaProfile profile : WalSchemaProfile.values()) {
            WalStorageSchema storage = AllTypesBatches.storage(profile);
            WalEntryCodec codec = new WalEntryCodec(storage, allocator);
            try (VectorSchemaRoot first = AllTypesBatches.batch(storage.schema(), allocator, 1, 700);
                    VectorSchemaRoot empty = AllTypesBatches.batch(storage.schema(), allocator, 800, 0);
                    VectorSchemaRoot second = AllTypesBatches.batch(storage.schema(), allocator, 900, 33)) {
                List<VectorSchemaRoot> batches = List.of(first, empty, second);
                byte[] heap = codec.encode(4, 2, batches);
                long before = allocator.getAllocatedMemory();
                try (DirectEntryBytes direct = codec.encodeDirect(4, 2, batches)) {
                    ByteBuffer bytes = direct.bytes();
                    assertThat(bytes.isDirect()).isTrue();
                    assertThat(direct.size()).isEqualTo(heap.length);
                    byte[] copy = new byte[bytes.remaining()];
                    bytes.get(copy);
                    assertThat(copy).as("%s", profile).isEqualTo(heap);
                }
                assertThat(allocator.getAllocatedMemory())
                        .as("memory given back")
                        .isEqualTo(before);
            }
        }
    }

    @Test
    void writesPastTheExpectedSizeArriveAndAClosedChannelRefusesMore() throws Exception {
        long seed = 20261207L;
        System.out.println("seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] a = new byte[100];
        byte[] b = new byte[5_000]; // past the expected size: the buffer grows
        for (byte[] part : List.of(a, b)) {
            for (int i = 0; i < part.length; i++) {
                part[i] = (byte) random.nextInt();
            }
        }
        try (DirectEntryBytes out = new DirectEntryBytes(allocator, 128)) {
            WritableByteChannel channel = out.channel();
            ByteBuffer first = ByteBuffer.allocateDirect(a.length).put(a).flip();
            assertThat(channel.write(first)).isEqualTo(100);
            assertThat(first.remaining()).as("consumed").isZero();
            assertThat(channel.write(ByteBuffer.wrap(b))).isEqualTo(5_000);
            channel.close(); // as the stream writer's close does: the bytes stay
            assertThatThrownBy(() -> channel.write(ByteBuffer.wrap(new byte[1])))
                    .isInstanceOf(ClosedChannelException.class);

            byte[] expected = new byte[5_100];
            System.arraycopy(a, 0, expected, 0, 100);
            System.arraycopy(b, 0, expected, 100, 5_000);
            byte[] actual = new byte[out.size()];
            out.bytes().get(actual);
            assertThat(actual).isEqualTo(expected);
        }
        assertThat(allocator.getAllocatedMemory()).isZero();
    }
}
