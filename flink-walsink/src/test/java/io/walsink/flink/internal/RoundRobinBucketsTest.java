package io.walsink.flink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.flink.internal.routing.BucketRouting;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.operators.StreamMap;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The round-robin bucket choice of an append table, as a subtask before the writer makes it. */
class RoundRobinBucketsTest {
    private static final BucketRouting ROUTING = new BucketRouting(4, 128);

    /** Buckets (from the routing keys) of ten records through subtask {@code index} of {@code parallelism}. */
    private static List<Integer> buckets(int index, int parallelism) throws Exception {
        List<Integer> buckets = new ArrayList<>();
        try (var harness = new OneInputStreamOperatorTestHarness<>(
                new StreamMap<>(new RoundRobinBuckets<Long>(ROUTING)), 128, parallelism, index)) {
            harness.open();
            for (long i = 0; i < 10; i++) {
                harness.processElement(i, 0);
            }
            for (Object out : harness.extractOutputValues()) {
                @SuppressWarnings("unchecked")
                Tuple2<Integer, Long> tagged = (Tuple2<Integer, Long>) out;
                assertThat(ROUTING.isRoutingKey(tagged.f0)).isTrue();
                buckets.add(ROUTING.bucketOf(tagged.f0));
            }
        }
        return buckets;
    }

    @Test
    void eachSubtaskCyclesThroughEveryBucketFromItsOwnIndex() throws Exception {
        assertThat(buckets(0, 2)).containsExactly(0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
        assertThat(buckets(1, 2)).containsExactly(1, 2, 3, 0, 1, 2, 3, 0, 1, 2);
        assertThat(buckets(5, 6)).startsWith(1, 2, 3, 0);
    }

    @Test
    void theWriterConvertsTheTaggedRecordItself() {
        RowType type = RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"n"});
        InputConversion<Tuple2<Integer, RowData>> conversion = RoundRobinBuckets.conversion(InputConversion.rowData());
        Function<Tuple2<Integer, RowData>, RowData> convert = conversion.open(type);
        RowData row = GenericRowData.of(7L);
        assertThat(convert.apply(Tuple2.of(ROUTING.keyOf(3), row))).isSameAs(row);
    }
}
