package io.walsink.flink.internal;

import io.walsink.shard.ShardDriver;
import io.walsink.shard.ShardDrivers;
import java.util.function.UnaryOperator;
import org.apache.flink.table.data.RowData;

/**
 * Writes one row into its bucket's shard, claiming the shard at the bucket's first row once that
 * row is checked on its own (a bad row must fail before a claim fences another writer).
 */
final class RowIntoShard implements RowsByBucket.RowSink {
    private final RecordInput<?> records;
    private final ShardDrivers drivers;
    private final Buckets buckets;
    private final ShardWriterMetrics metrics;
    private final UnaryOperator<Exception> explain;

    /** @param explain turns a failure into the one the task fails with (the memory cap explained) */
    RowIntoShard(
            RecordInput<?> records,
            ShardDrivers drivers,
            Buckets buckets,
            ShardWriterMetrics metrics,
            UnaryOperator<Exception> explain) {
        this.records = records;
        this.drivers = drivers;
        this.buckets = buckets;
        this.metrics = metrics;
        this.explain = explain;
    }

    @Override
    public void write(int bucket, RowData row, boolean delete) throws Exception {
        try {
            ShardDriver shard = drivers.get(bucket);
            if (shard == null) {
                records.check(row);
                shard = buckets.open(bucket);
            }
            drivers.write(shard, records.row(row), delete);
            metrics.rowIn(delete);
        } catch (RuntimeException e) {
            throw explain.apply(e);
        }
    }
}
