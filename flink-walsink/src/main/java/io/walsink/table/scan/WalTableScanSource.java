package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * A bounded FLIP-27 source that reads one snapshot of a walsink table, pinned when its enumerator
 * is created (when the job starts, not on restore: a restored enumerator keeps the splits it had,
 * snapshot included).
 *
 * <p>Merge-on-read must see, for every key, the base table's row together with the rows of the
 * key's shard that compaction has not merged yet. Those unmerged rows are few (the writers'
 * memtables since the last compaction), so every split of base fragments reads the keys of all
 * shards' unmerged rows and leaves those keys out of its base rows, and one split per bucket (one
 * for the table when it cannot be read by bucket) emits the unmerged live rows. See {@link
 * TableScan#scanSplits}.
 */
@Internal
public final class WalTableScanSource implements Source<RowData, TableScanSplit, List<TableScanSplit>> {
    private static final long serialVersionUID = 1L;

    private final TableScan scan;

    public WalTableScanSource(TableScan scan) {
        this.scan = scan;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<TableScanSplit, List<TableScanSplit>> createEnumerator(
            SplitEnumeratorContext<TableScanSplit> context) {
        // Pinned once, here: every split, and every restore of one, reads this snapshot.
        return new TableScanEnumerator<>(context, scan.scanSplits(scan.pin()));
    }

    @Override
    public SplitEnumerator<TableScanSplit, List<TableScanSplit>> restoreEnumerator(
            SplitEnumeratorContext<TableScanSplit> context, List<TableScanSplit> pending) {
        return new TableScanEnumerator<>(context, pending);
    }

    @Override
    public SimpleVersionedSerializer<TableScanSplit> getSplitSerializer() {
        return new TableScanSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<List<TableScanSplit>> getEnumeratorCheckpointSerializer() {
        return new TableScanSplitSerializer.Pending();
    }

    @Override
    public SourceReader<RowData, TableScanSplit> createReader(SourceReaderContext context) {
        return new TableScanReader(context, scan);
    }

    public TableScan scan() {
        return scan;
    }
}
