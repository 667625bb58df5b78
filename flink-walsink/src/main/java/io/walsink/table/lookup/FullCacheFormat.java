package io.walsink.table.lookup;

import io.walsink.annotation.Internal;
import io.walsink.read.snapshot.TableSnapshot;
import io.walsink.table.scan.SplitRows;
import io.walsink.table.scan.TableScan;
import io.walsink.table.scan.TableScanSplit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.api.common.io.DefaultInputSplitAssigner;
import org.apache.flink.api.common.io.InputFormat;
import org.apache.flink.api.common.io.statistics.BaseStatistics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputSplitAssigner;
import org.apache.flink.table.data.RowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills Flink's FULL lookup cache: in Flink 2.x the planner loads a full cache only from an
 * {@link InputFormat}. Each load asks for splits first ({@link #createInputSplits}), which pins
 * a new snapshot of the table, so one load is one consistent state and every load a newer one;
 * the splits are the bucket splits of the bounded scan, read in parallel by the cache loader,
 * each the newest row per key with deletes left out, projected to the columns of the join.
 *
 * <p>A failed pin or bucket read is tried again {@code lookup.max-retries} times: a load that
 * fails makes Flink's full cache fail the join at its next probe, so a passing storage error
 * must not reach it.
 */
@Internal
public final class FullCacheFormat implements InputFormat<RowData, FullCacheSplit> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FullCacheFormat.class);

    private final TableScan scan;
    private final int maxRetries;
    private transient Iterator<RowData> rows;

    /** @param scan the table and the columns of a cached row; its mode says what a load reads */
    public FullCacheFormat(TableScan scan, int maxRetries) {
        this.scan = scan;
        this.maxRetries = maxRetries;
    }

    @Override
    public void configure(Configuration parameters) {}

    @Override
    public BaseStatistics getStatistics(BaseStatistics cachedStatistics) {
        return cachedStatistics;
    }

    @Override
    public FullCacheSplit[] createInputSplits(int minNumSplits) throws IOException {
        TableSnapshot snapshot = retrying("Pinning a snapshot of walsink table " + scan.path(), scan::pin);
        List<TableScanSplit> splits =
                retrying("Splitting walsink table " + scan.path(), () -> scan.scanSplits(snapshot));
        FullCacheSplit[] result = new FullCacheSplit[splits.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = new FullCacheSplit(i, splits.get(i));
        }
        LOG.info(
                "Loading walsink table {} into a FULL lookup cache: {}, {} splits",
                scan.path(),
                snapshot.describe(),
                result.length);
        return result;
    }

    @Override
    public InputSplitAssigner getInputSplitAssigner(FullCacheSplit[] splits) {
        return new DefaultInputSplitAssigner(splits);
    }

    @Override
    public void open(FullCacheSplit split) throws IOException {
        rows = retrying(
                        "Loading " + split.scan().splitId() + " of walsink table " + scan.path()
                                + " into a lookup cache",
                        () -> readWhole(split.scan()))
                .iterator();
    }

    @Override
    public boolean reachedEnd() {
        return !rows.hasNext();
    }

    @Override
    public RowData nextRecord(RowData reuse) {
        return rows.next();
    }

    @Override
    public void close() {
        rows = null;
    }

    /** All of a split's rows: the cache holds them anyway, and a failed attempt is retried from the start. */
    private List<RowData> readWhole(TableScanSplit split) {
        List<RowData> all = new ArrayList<>();
        try (SplitRows rows = scan.open(split)) {
            for (RowData row = rows.next(); row != null; row = rows.next()) {
                all.add(row);
            }
        }
        return all;
    }

    private <T> T retrying(String what, Supplier<T> read) throws IOException {
        // Every attempt opens its own store and datasets: nothing to reset in between.
        return LookupRetries.call(what, maxRetries, read, () -> {});
    }
}
