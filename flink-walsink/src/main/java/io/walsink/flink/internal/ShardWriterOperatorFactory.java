package io.walsink.flink.internal;

import io.walsink.annotation.Internal;
import io.walsink.flink.WalSinkOptions;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.table.types.logical.RowType;

/**
 * Creates {@link ShardWriterOperator}s (its {@code setup} is not public, hence a factory). The
 * operator emits nothing; {@code OUT} is the type of the stream the sink's writer stage is given.
 */
@Internal
public final class ShardWriterOperatorFactory<IN, OUT> extends AbstractStreamOperatorFactory<OUT>
        implements OneInputStreamOperatorFactory<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final WalSinkOptions options;
    private final RowType rowType;
    private final InputConversion<IN> conversion;

    public ShardWriterOperatorFactory(WalSinkOptions options, RowType rowType, InputConversion<IN> conversion) {
        this.options = options;
        this.rowType = rowType;
        this.conversion = conversion;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> parameters) {
        return (T) new ShardWriterOperator<>(parameters, options, rowType, conversion);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return ShardWriterOperator.class;
    }
}
