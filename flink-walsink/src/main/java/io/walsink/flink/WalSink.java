package io.walsink.flink;

import io.walsink.annotation.PublicEvolving;
import io.walsink.flink.convert.FlinkArrowTypes;
import io.walsink.flink.convert.RowDataBucketHasher;
import io.walsink.flink.convert.writers.RowDataArrowWriter;
import io.walsink.flink.internal.BucketKeySelector;
import io.walsink.flink.internal.InputConversion;
import io.walsink.flink.internal.NoRecordsWriter;
import io.walsink.flink.internal.RoundRobinBuckets;
import io.walsink.flink.internal.ShardWriterOperatorFactory;
import io.walsink.flink.internal.memory.SinkSettings;
import io.walsink.flink.internal.routing.BucketRouting;
import io.walsink.format.table.AppendRowKey;
import io.walsink.format.table.AppendShards;
import io.walsink.format.table.ShardTransform;
import io.walsink.format.table.TableInfo;
import io.walsink.shard.TableContext;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

/**
 * A Flink sink that writes upserts, deletes and appends into a Lance table through MemWAL.
 *
 * <pre>{@code
 * stream.sinkTo(WalSink.forRows(rowType)
 *         .path("s3://bucket/tables/events")
 *         .primaryKey("id")
 *         .createTableIfMissing(8)
 *         .build());
 * }</pre>
 *
 * <p>The records go through {@code keyBy(bucket of the primary key)} into a keyed shard-writer
 * operator placed in this sink's pre-write topology; see docs/architecture.md. Give the sink a
 * uid ({@code stream.sinkTo(sink).uid("events-sink")}): Flink derives the writer operator's uid
 * from it, which keeps its state restorable from savepoints when the job changes. With
 * checkpointing on, published SSTables follow completed checkpoints (exactly-once for readers of
 * published data); without it they are published when written.
 */
@PublicEvolving
public final class WalSink<IN> implements Sink<IN>, SupportsPreWriteTopology<IN> {
    private static final long serialVersionUID = 1L;

    private final WalSinkOptions options;
    private final RowType rowType;
    private final InputConversion<IN> conversion;
    private final RowDataBucketHasher hasher;
    private final int buckets;
    private final boolean roundRobin; // an append table spread over its shards without a column
    private final Integer parallelism;

    WalSink(
            WalSinkOptions options,
            RowType rowType,
            InputConversion<IN> conversion,
            RowDataBucketHasher hasher,
            int buckets,
            boolean roundRobin,
            Integer parallelism) {
        this.options = options;
        this.rowType = rowType;
        this.conversion = conversion;
        this.hasher = hasher;
        this.buckets = buckets;
        this.roundRobin = roundRobin;
        this.parallelism = parallelism;
    }

    /** Flink SQL's internal rows, of the given type. */
    public static WalSinkBuilder<RowData> forRowData(RowType rowType) {
        return new WalSinkBuilder<>(InputConversion.rowData(), rowType);
    }

    /** {@link Row}s; the row type is taken from the table unless given (needed to create one). */
    public static WalSinkBuilder<Row> forRows() {
        return new WalSinkBuilder<>(InputConversion.rows(), null);
    }

    public static WalSinkBuilder<Row> forRows(RowType rowType) {
        return new WalSinkBuilder<>(InputConversion.rows(), rowType);
    }

    /** Java records or beans whose properties are named like the table's columns. */
    public static <T> WalSinkBuilder<T> forPojos(Class<T> type) {
        return new WalSinkBuilder<>(InputConversion.pojos(type), null);
    }

    public static <T> WalSinkBuilder<T> forPojos(Class<T> type, RowType rowType) {
        return new WalSinkBuilder<>(InputConversion.pojos(type), rowType);
    }

    static <IN> WalSink<IN> create(
            WalSinkOptions options,
            TableInfo table,
            RowType rowType,
            InputConversion<IN> conversion,
            Integer parallelism) {
        // Everything that can fail on bad input fails here, while the job is built.
        RowDataArrowWriter.create(rowType, AppendRowKey.userSchema(table));
        conversion.open(rowType);
        TableContext.validate(table, options.schemaProfile());
        RowDataBucketHasher hasher = null;
        int buckets = 1;
        if (table.sharding().sharding().transform() == ShardTransform.BUCKET) {
            String column = table.sharding().sharding().sourceColumn().orElseThrow();
            buckets = table.sharding().sharding().numBuckets().orElseThrow();
            hasher = new RowDataBucketHasher(rowType, table.schema().findField(column), buckets);
        } else if (table.sharding().sharding().transform() != ShardTransform.UNSHARDED) {
            throw new IllegalArgumentException("table at " + table.uri() + " uses "
                    + table.sharding().sharding().transform() + " sharding; walsink writes bucket or unsharded tables");
        } else {
            buckets = AppendShards.of(table); // 1 for a keyed table
        }
        return new WalSink<>(options, rowType, conversion, hasher, buckets, buckets > 1 && hasher == null, parallelism);
    }

    @Override
    public DataStream<IN> addPreWriteTopology(DataStream<IN> input) {
        int maxParallelism = writerMaxParallelism(input.getExecutionEnvironment());
        SingleOutputStreamOperator<IN> written = roundRobin
                ? roundRobin(input, maxParallelism)
                : input.keyBy(keySelector(maxParallelism), Types.INT)
                        .transform("walsink writer: " + options.path(), input.getType(), operatorFactory());
        written.name("walsink writer: " + options.path());
        if (parallelism != null) {
            written.setParallelism(parallelism);
        }
        // The key selector places buckets by key group (BucketRouting), so the writer's max
        // parallelism is fixed here rather than left to Flink's default at run time.
        written.setMaxParallelism(maxParallelism);
        // The writer's memtables come out of the slot's managed memory (docs/configuration.md#memory).
        written.getTransformation()
                .declareManagedMemoryUseCaseAtOperatorScope(
                        ManagedMemoryUseCase.OPERATOR,
                        managedMemoryWeight(
                                options.settings(),
                                input.getExecutionEnvironment().getConfiguration()));
        return written;
    }

    /**
     * The writer's weight among the operators of a slot that use managed memory: its memory cap in
     * MiB as the settings give it (1168 with the defaults), as Flink SQL's batch operators weigh
     * theirs by the MiB they ask for.
     */
    static int managedMemoryWeight(SinkSettings settings, ReadableConfig job) {
        if (job.get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.STREAMING) {
            // In batch execution Flink sorts the keyed input and gives the operator's managed memory
            // to the sorter, declaring the weight of execution.sorted-inputs.memory; a different
            // weight here would conflict with it. The writer then has no managed memory.
            return Math.max(1, job.get(ExecutionOptions.SORTED_INPUTS_MEMORY).getMebiBytes());
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, settings.offHeapBytesPerSubtask() >> 20));
    }

    /** An append table's records tagged with buckets in turn, then keyed by the tag ({@link RoundRobinBuckets}). */
    private SingleOutputStreamOperator<IN> roundRobin(DataStream<IN> input, int maxParallelism) {
        SingleOutputStreamOperator<Tuple2<Integer, IN>> tagged = input.map(
                        new RoundRobinBuckets<>(new BucketRouting(buckets, maxParallelism)))
                .returns(new TupleTypeInfo<>(Types.INT, input.getType()))
                .name("walsink buckets: " + options.path());
        tagged.setParallelism(input.getParallelism()); // chained to the input, where a key selector runs
        return tagged.keyBy(t -> t.f0, Types.INT)
                .transform(
                        "walsink writer: " + options.path(),
                        input.getType(),
                        new ShardWriterOperatorFactory<>(options, rowType, RoundRobinBuckets.conversion(conversion)));
    }

    BucketKeySelector<IN> keySelector(int maxParallelism) {
        return new BucketKeySelector<>(conversion, rowType, hasher, new BucketRouting(buckets, maxParallelism));
    }

    /**
     * The writer's max parallelism: the job's setting, or Flink's default for the writer's
     * parallelism (at least one key group per bucket, so every bucket can have its own subtask).
     */
    private int writerMaxParallelism(StreamExecutionEnvironment env) {
        int configured = env.getConfig().getMaxParallelism();
        if (configured > 0) {
            return configured;
        }
        int writers = parallelism != null ? parallelism : env.getParallelism();
        int fallback = writers > 0 ? KeyGroupRangeAssignment.computeDefaultMaxParallelism(writers) : 128;
        return Math.min(Math.max(fallback, buckets), KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM);
    }

    /** The writer decides at run time, from its job's configuration, whether checkpoints drive publication. */
    ShardWriterOperatorFactory<IN, IN> operatorFactory() {
        return new ShardWriterOperatorFactory<>(options, rowType, conversion);
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) {
        return new NoRecordsWriter<>();
    }

    WalSinkOptions options() {
        return options;
    }

    RowType rowType() {
        return rowType;
    }

    static RowType rowTypeOf(TableInfo table) {
        return FlinkArrowTypes.toRowType(AppendRowKey.userSchema(table));
    }
}
