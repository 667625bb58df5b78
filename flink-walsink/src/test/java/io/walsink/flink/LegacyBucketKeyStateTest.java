package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.flink.internal.BucketKeySelector;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed state from a build that keyed buckets by their bare number cannot be restored by one that
 * routes them by key group: the state of a bucket would sit in a subtask that no longer receives
 * its rows. The restore refuses it once, with a message, instead of two subtasks claiming a shard.
 */
class LegacyBucketKeyStateTest {
    @TempDir
    Path dir;

    @Test
    void stateUnderABareBucketNumberFailsTheRestoreWithoutRestarts() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(4)
                .flushInterval(Duration.ofMillis(50))
                .build();
        BucketKeySelector<RowData> selector = sink.keySelector(SinkHarness.MAX_PARALLELISM);
        int bucket = -1;
        long id = 0;
        for (; bucket < 0; id++) {
            int b = selector.routing().bucketOf(selector.getKey(upsert(id, "")));
            if (selector.routing().keyOf(b) != b) {
                bucket = b; // a bucket whose bare number is not its routing key
            }
        }
        OperatorSubtaskState state;
        try (SinkHarness h = SinkHarness.of(sink)) {
            h.open();
            h.processElement(upsert(id - 1, "v"), 0);
            h.prepareSnapshotPreBarrier(1);
            h.snapshot(1, 1);
            // What an earlier build left: the same descriptor under the bare bucket number.
            AbstractStreamOperator<?> operator = (AbstractStreamOperator<?>) h.getOperator();
            ValueState<byte[]> descriptors = operator.getKeyedStateBackend()
                    .getPartitionedState(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>(
                                    "walsink-shard", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
            operator.setCurrentKey(selector.routing().keyOf(bucket));
            byte[] descriptor = descriptors.value();
            assertThat(descriptor)
                    .as("the routing key holds the bucket's descriptor")
                    .isNotNull();
            descriptors.clear();
            operator.setCurrentKey(bucket);
            descriptors.update(descriptor);
            state = h.snapshot(2, 2);
        }
        try (SinkHarness restored = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            restored.initializeState(state);
            assertThatThrownBy(restored::open)
                    .isInstanceOf(SuppressRestartsException.class)
                    .hasStackTraceContaining("routed buckets to subtasks by their bare number")
                    .hasStackTraceContaining("bucket " + bucket);
        }
    }
}
