package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import io.walsink.flink.convert.RowDataBucketHasher;
import io.walsink.flink.internal.routing.BucketRouting;
import java.util.function.Function;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The sink's {@code keyBy}: the Lance bucket of a record's primary key, so that each bucket (and
 * so each shard) has exactly one writer, carried by the bucket's {@link BucketRouting} key so
 * that buckets spread evenly over the writer's subtasks. A table without bucket sharding has one
 * shard, bucket 0.
 */
@Internal
public final class BucketKeySelector<IN> implements KeySelector<IN, Integer> {
    private static final long serialVersionUID = 1L;

    private final InputConversion<IN> conversion;
    private final RowType rowType;
    private final RowDataBucketHasher hasher; // null: unsharded
    private final BucketRouting routing;
    private transient Function<IN, RowData> converter;

    public BucketKeySelector(
            InputConversion<IN> conversion, RowType rowType, RowDataBucketHasher hasher, BucketRouting routing) {
        this.conversion = conversion;
        this.rowType = rowType;
        this.hasher = hasher;
        this.routing = routing;
    }

    public BucketRouting routing() {
        return routing;
    }

    @Override
    public Integer getKey(IN value) {
        if (hasher == null) {
            return routing.boxedKeyOf(0);
        }
        if (converter == null) {
            converter = conversion.open(rowType);
        }
        return routing.boxedKeyOf(hasher.bucketOf(converter.apply(value)));
    }
}
