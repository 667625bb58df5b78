package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * The Sink V2 writer of {@link io.walsink.flink.WalSink}. All writing happens in the keyed
 * {@link ShardWriterOperator} of the pre-write topology (a Sink V2 writer gets neither keyed
 * state nor keyed timers); that operator emits nothing, so no record ever reaches this writer.
 */
@Internal
public final class NoRecordsWriter<IN> implements SinkWriter<IN> {

    @Override
    public void write(IN element, Context context) {
        throw new IllegalStateException("walsink writes in its keyed shard-writer operator; "
                + "a record reached the sink writer, which means the pre-write topology was bypassed");
    }

    @Override
    public void flush(boolean endOfInput) {}

    @Override
    public void close() {}
}
