package io.walsink.format.table;

import io.walsink.annotation.Internal;
import java.util.Arrays;
import java.util.stream.Collectors;

/** How MemWAL maps a row to a shard value (the {@code transform} of a sharding field). */
@Internal
public enum ShardTransform {
    /** One shard; every row has shard value 0. */
    UNSHARDED("unsharded"),
    /** {@code (hash(column) & 0x7fffffff) % num_buckets}. */
    BUCKET("bucket"),
    /** The raw value of the column. */
    IDENTITY("identity");

    private final String lanceName;

    ShardTransform(String lanceName) {
        this.lanceName = lanceName;
    }

    /** The name Lance stores in {@code ShardingField.transform}. */
    public String lanceName() {
        return lanceName;
    }

    public static ShardTransform fromLanceName(String name) {
        for (ShardTransform t : values()) {
            if (t.lanceName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown sharding transform '" + name + "'; known: "
                + Arrays.stream(values()).map(ShardTransform::lanceName).collect(Collectors.joining(", ")));
    }
}
