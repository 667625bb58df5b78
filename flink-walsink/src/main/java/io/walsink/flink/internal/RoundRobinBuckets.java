package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import io.walsink.flink.internal.routing.BucketRouting;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The bucket choice of an append table spread round-robin (no primary key, no bucket column):
 * each subtask of the stream before the sink tags its records with the routing key of bucket
 * {@code i, i + 1, ...} in turn (starting at its own subtask index, so subtasks do not all begin at
 * bucket 0), and the writer is keyed by that tag. The tag travels with the record, so the writer
 * never computes a bucket again: a key selector must be deterministic, a counter is not.
 *
 * <p>A replay after a failover may place a record in another bucket than the failed attempt did;
 * exactly-once does not depend on it, since every shard is restored to the checkpoint (rows written
 * after it are dropped, in whichever shard they were).
 */
@Internal
public final class RoundRobinBuckets<IN> extends RichMapFunction<IN, Tuple2<Integer, IN>> {
    private static final long serialVersionUID = 1L;

    private final BucketRouting routing;
    private transient int next;

    public RoundRobinBuckets(BucketRouting routing) {
        this.routing = routing;
    }

    @Override
    public void open(OpenContext context) {
        next = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() % routing.buckets();
    }

    @Override
    public Tuple2<Integer, IN> map(IN value) {
        int bucket = next;
        next = next + 1 == routing.buckets() ? 0 : next + 1;
        return Tuple2.of(routing.keyOf(bucket), value);
    }

    /** The bucket the next record goes to (for tests). */
    int next() {
        return next;
    }

    /** How the writer reads a tagged record: the record's own conversion, on the record. */
    public static <IN> InputConversion<Tuple2<Integer, IN>> conversion(InputConversion<IN> records) {
        return rowType -> {
            var convert = records.open(rowType);
            return tagged -> convert.apply(tagged.f1);
        };
    }
}
