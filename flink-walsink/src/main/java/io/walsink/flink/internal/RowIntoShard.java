package io.walsink.flink.internal;

import io.walsink.shard.driver.ShardDriver;
import io.walsink.shard.driver.ShardDrivers;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * Opens the shards of the block's buckets that have none yet side by side, once each bucket's
     * first row is checked on its own (a job's first start: on S3 an open is about ten requests in
     * sequence, and one bucket after another on this thread a subtask with many buckets waited
     * for each in turn).
     */
    @Override
    public void beforeBlock(int[] blockBuckets, RowData[] firstRows, int count) throws Exception {
        List<Integer> missing = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                if (drivers.get(blockBuckets[i]) == null) {
                    records.check(firstRows[i]);
                    missing.add(blockBuckets[i]);
                }
            }
            if (missing.size() > 1) {
                buckets.openAll(missing);
            }
        } catch (RuntimeException e) {
            throw explain.apply(e);
        }
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
