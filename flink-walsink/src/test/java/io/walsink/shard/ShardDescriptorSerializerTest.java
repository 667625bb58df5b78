package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.shard.io.WrittenSsTable;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ShardDescriptorSerializerTest {
    private static final UUID SHARD = UUID.fromString("0b6f5bd4-2c57-4e5c-a0ad-7a0b0f3c9a11");

    private static ShardDescriptor sample() {
        return sample(12, 42);
    }

    private static ShardDescriptor sample(long manifestVersion, long baseVersion) {
        return new ShardDescriptor(
                SHARD,
                3,
                7,
                10,
                25,
                4,
                1,
                manifestVersion,
                baseVersion,
                List.of(
                        new WrittenSsTable(2, "a1b2c3d4_gen_2", 14, 1000, 64_000, 8_000),
                        new WrittenSsTable(3, "e5f6a7b8_gen_3", 21, 900, 60_000, 7_200)));
    }

    /**
     * {@link #sample()} without the pin, as the previous release wrote it (version 1); its
     * savepoints must still restore.
     */
    private static final String VERSION_1 = "010b6f5bd42c574e5ca0ad7a0b0f3c9a11000000030000000000000007000000"
            + "000000000a000000000000001900000000000000040000000000000001000000"
            + "020000000000000002000e61316232633364345f67656e5f3200000000000000"
            + "0e00000000000003e8000000000000fa000000000000001f4000000000000000"
            + "03000e65356636613762385f67656e5f33000000000000001500000000000003"
            + "84000000000000ea600000000000001c20";

    /** {@link #sample()} without the base version, as the previous release wrote it (version 2). */
    private static final String VERSION_2 = "020b6f5bd42c574e5ca0ad7a0b0f3c9a11000000030000000000000007000000"
            + "000000000a000000000000001900000000000000040000000000000001000000"
            + "000000000c000000020000000000000002000e61316232633364345f67656e5f"
            + "32000000000000000e00000000000003e8000000000000fa000000000000001f"
            + "400000000000000003000e65356636613762385f67656e5f3300000000000000"
            + "150000000000000384000000000000ea600000000000001c20";

    @Test
    void readsVersion1AsUnpinned() {
        ShardDescriptor d = ShardDescriptorSerializer.deserialize(HexFormat.of().parseHex(VERSION_1));
        assertThat(d).isEqualTo(sample(0, 0));
        assertThat(d.pinned()).isFalse();
    }

    @Test
    void readsVersion2WithAnUnknownBaseVersion() {
        ShardDescriptor d = ShardDescriptorSerializer.deserialize(HexFormat.of().parseHex(VERSION_2));
        assertThat(d.manifestVersion()).isEqualTo(12);
        assertThat(d.baseVersion()).isZero();
    }

    @Test
    void writesVersion3WithTheBaseVersionAfterThePinnedManifestVersion() {
        String written = HexFormat.of().formatHex(ShardDescriptorSerializer.serialize(sample()));
        // Version 2's bytes with the version byte 3 and the base version (42) after the manifest version (12).
        String pin = "000000000000000c";
        int at = VERSION_2.indexOf(pin) + pin.length();
        assertThat(written).isEqualTo("03" + VERSION_2.substring(2, at) + "000000000000002a" + VERSION_2.substring(at));
    }

    @Test
    void roundTrips() {
        ShardDescriptor d = sample();
        assertThat(ShardDescriptorSerializer.deserialize(ShardDescriptorSerializer.serialize(d)))
                .isEqualTo(d);
    }

    @Test
    void staysSmall() {
        ShardDescriptor empty = ShardDescriptor.empty(SHARD, 0);
        assertThat(ShardDescriptorSerializer.serialize(empty)).hasSizeLessThan(96);
    }

    @Test
    void truncatedOrTrailingBytesAreRejected() {
        for (byte[] bytes : List.of(
                ShardDescriptorSerializer.serialize(sample()), HexFormat.of().parseHex(VERSION_1))) {
            assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(Arrays.copyOf(bytes, bytes.length - 3)))
                    .hasMessageContaining("truncated");
            assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(Arrays.copyOf(bytes, bytes.length + 2)))
                    .hasMessageContaining("trailing");
        }
    }

    @Test
    void unknownVersionIsRejected() {
        byte[] bytes = ShardDescriptorSerializer.serialize(sample());
        bytes[0] = 9;
        assertThatThrownBy(() -> ShardDescriptorSerializer.deserialize(bytes)).hasMessageContaining("version 9");
    }

    @Test
    void inconsistentStateIsRejected() {
        assertThatThrownBy(() -> new ShardDescriptor(SHARD, 0, 1, 5, 4, 1, 0, 1, 0, List.of()))
                .hasMessageContaining("before replay_after");
        assertThatThrownBy(() -> new ShardDescriptor(
                        SHARD, 0, 1, 0, 4, 3, 0, 1, 0, List.of(new WrittenSsTable(2, "0a0b0c0d_gen_2", 9, 1, 1, 1))))
                .hasMessageContaining("beyond the durable position");
        assertThatThrownBy(() -> new ShardDescriptor(SHARD, 0, 1, 0, 4, 3, 0, -1, 0, List.of()))
                .hasMessageContaining("manifest version -1");
    }
}
