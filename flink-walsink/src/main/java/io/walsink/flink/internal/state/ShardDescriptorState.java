package io.walsink.flink.internal.state;

import io.walsink.annotation.Internal;
import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.shard.ShardDescriptor;
import io.walsink.shard.ShardDescriptorSerializer;
import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.io.WrittenSsTable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;

/**
 * The writer's keyed state: each owned shard's {@link ShardDescriptor} (WAL positions and SSTables
 * not yet published, not rows) under its bucket's routing key, so rescaling moves a shard with its
 * key group.
 */
@Internal
public final class ShardDescriptorState {
    static final String STATE_NAME = "walsink-shard";

    private final ValueState<byte[]> state;
    private final BucketRouting routing;
    private final IntConsumer setCurrentKey;

    ShardDescriptorState(ValueState<byte[]> state, BucketRouting routing, IntConsumer setCurrentKey) {
        this.state = state;
        this.routing = routing;
        this.setCurrentKey = setCurrentKey;
    }

    /** The operator's state of this name (bytes: {@link ShardDescriptorSerializer}'s format). */
    public static ShardDescriptorState open(RuntimeContext context, BucketRouting routing, IntConsumer setCurrentKey) {
        ValueState<byte[]> state = context.getState(
                new ValueStateDescriptor<>(STATE_NAME, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        return new ShardDescriptorState(state, routing, setCurrentKey);
    }

    /**
     * The descriptors restored to this subtask, by routing key. State a build that keyed buckets
     * by their bare number wrote cannot be placed: that fails the job once, not on every restart.
     */
    public List<ShardDescriptor> restored(KeyedStateBackend<?> backend) throws Exception {
        List<Integer> keys = backend.<VoidNamespace>getKeys(STATE_NAME, VoidNamespace.INSTANCE)
                .map(k -> (Integer) k)
                .sorted()
                .toList();
        List<ShardDescriptor> descriptors = new ArrayList<>(keys.size());
        for (int key : keys) {
            setCurrentKey.accept(key);
            ShardDescriptor descriptor = ShardDescriptorSerializer.deserialize(state.value());
            if (!routing.isRoutingKey(key) || routing.bucketOf(key) != descriptor.bucket()) {
                throw new SuppressRestartsException(new IllegalStateException("walsink state key " + key
                        + " (bucket " + descriptor.bucket() + ") was written by a walsink build that routed"
                        + " buckets to subtasks by their bare number; this build spreads them by key group"
                        + " and cannot restore that state. Start the job without it: opening a shard replays"
                        + " its WAL, so nothing durable is lost (see docs/operations.md)"));
            }
            descriptors.add(descriptor);
        }
        return descriptors;
    }

    /**
     * Writes every open shard's descriptor; returns, per bucket with SSTables not yet published,
     * the newest generation this checkpoint covers.
     */
    Map<Integer, Long> snapshot(Collection<ShardDriver> shards) throws Exception {
        Map<Integer, Long> covered = new HashMap<>();
        for (ShardDriver d : shards) {
            setCurrentKey.accept(routing.keyOf(d.bucket()));
            ShardDescriptor descriptor = d.writer().snapshot();
            state.update(ShardDescriptorSerializer.serialize(descriptor));
            List<WrittenSsTable> unpublished = descriptor.unpublished();
            if (!unpublished.isEmpty()) {
                covered.put(d.bucket(), unpublished.get(unpublished.size() - 1).generation());
            }
        }
        return covered;
    }
}
