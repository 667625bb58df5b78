package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShardDescriptorSerializerTest {
    private static final UUID SHARD = UUID.fromString("0b6f5bd4-2c57-4e5c-a0ad-7a0b0f3c9a11");

    private static ShardDescriptor sample() {
        return new ShardDescriptor(SHARD, 3, 7, 10, 25, 4, 1, List.of(
                new WrittenSsTable(2, "a1b2c3d4_gen_2", 14, 1000, 64_000, 8_000),
                new WrittenSsTable(3, "e5f6a7b8_gen_3", 21, 900, 60_000, 7_200)));
    }

    @Test
    void roundTrips() {
        ShardDescriptor d = sample();
        assertThat(ShardDescriptorSerializer.deserialize(ShardDescriptorSerializer.serialize(d))).isEqualTo(d);
    }

    @Test
    void staysSmall() {
        ShardDescriptor empty = ShardDescriptor.empty(SHARD, 0);
        assertThat(ShardDescriptorSerializer.serialize(empty)).hasSizeLessThan(80);
    }

    @Test
    void truncatedOrTrailingBytesAreRejected() {
        byte[] bytes = ShardDescriptorSerializer.serialize(sample());
        assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(Arrays.copyOf(bytes, bytes.length - 3)))
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(Arrays.copyOf(bytes, bytes.length + 2)))
                .hasMessageContaining("trailing");
    }

    @Test
    void unknownVersionIsRejected() {
        byte[] bytes = ShardDescriptorSerializer.serialize(sample());
        bytes[0] = 9;
        assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(bytes)).hasMessageContaining("version 9");
    }

    @Test
    void inconsistentStateIsRejected() {
        assertThatThrownBy(() -> new ShardDescriptor(SHARD, 0, 1, 5, 4, 1, 0, List.of()))
                .hasMessageContaining("before replay_after");
        assertThatThrownBy(() -> new ShardDescriptor(SHARD, 0, 1, 0, 4, 3, 0,
                        List.of(new WrittenSsTable(2, "0a0b0c0d_gen_2", 9, 1, 1, 1))))
                .hasMessageContaining("beyond the durable position");
    }
}
