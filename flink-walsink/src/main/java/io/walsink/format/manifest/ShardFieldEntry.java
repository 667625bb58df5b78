package io.walsink.format.manifest;

import io.walsink.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One sharding-field value a shard owns, proto {@code ShardFieldEntry}: the field id of the
 * sharding spec and the raw little-endian Arrow scalar (an int32 is 4 bytes). Readers use it to
 * prune shards, so it must match the routing that fed the shard.
 */
@Internal
public record ShardFieldEntry(String fieldId, byte[] value) {
    /** Field id Lance gives the bucket transform's result in the spec it creates. */
    public static final String BUCKET_FIELD_ID = "bucket";

    public ShardFieldEntry {
        Objects.requireNonNull(fieldId, "fieldId");
        value = value.clone();
    }

    /** {@code {"bucket": int32 little-endian}}, the entry of a shard fed by one bucket. */
    public static ShardFieldEntry bucket(int bucket) {
        return new ShardFieldEntry(BUCKET_FIELD_ID, int32LittleEndian(bucket));
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    /** The value read as an int32 scalar, if it is exactly 4 bytes. */
    public OptionalInt int32Value() {
        if (value.length != Integer.BYTES) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(
                ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getInt());
    }

    private static byte[] int32LittleEndian(int v) {
        return ByteBuffer.allocate(Integer.BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(v)
                .array();
    }

    // byte[] components compare by identity in a record; entries are values.
    @Override
    public boolean equals(Object o) {
        return o instanceof ShardFieldEntry other && fieldId.equals(other.fieldId) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * fieldId.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "ShardFieldEntry[" + fieldId + "=0x" + HexFormat.of().formatHex(value) + "]";
    }
}
