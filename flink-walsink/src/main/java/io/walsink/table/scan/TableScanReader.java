package io.walsink.table.scan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;

/**
 * Reads the splits it is given one after another, one row per poll so that checkpoints can pass
 * between rows: base rows are streamed a batch at a time, the unmerged part a split owns is
 * merged when the split starts. A restored split opens at the position its checkpoint recorded,
 * within the same pinned snapshot (see {@link TableScanSplit}).
 */
final class TableScanReader extends TaskThreadSourceReader<RowData, TableScanSplit> {
    private final TableScan scan;
    private final Deque<TableScanSplit> assigned = new ArrayDeque<>();

    private SplitRows current;

    TableScanReader(SourceReaderContext context, TableScan scan) {
        super(context);
        this.scan = scan;
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RowData> output) {
        if (current == null) {
            TableScanSplit split = assigned.poll();
            if (split == null) {
                return noMoreSplits() ? InputStatus.END_OF_INPUT : nothingAvailable(0);
            }
            current = scan.openForEmit(split);
        }
        RowData row = current.next();
        if (row != null) {
            output.collect(row);
            return InputStatus.MORE_AVAILABLE;
        }
        closeCurrent();
        context.sendSplitRequest();
        return InputStatus.MORE_AVAILABLE; // the next poll starts a split or waits for one
    }

    private void closeCurrent() {
        try (SplitRows done = current) {
            current = null;
        }
    }

    @Override
    public List<TableScanSplit> snapshotState(long checkpointId) {
        List<TableScanSplit> state = new ArrayList<>();
        if (current != null) {
            state.add(current.state());
        }
        state.addAll(assigned);
        return state;
    }

    @Override
    public void addSplits(List<TableScanSplit> splits) {
        assigned.addAll(splits);
        wake();
    }

    @Override
    public void close() {
        if (current != null) {
            closeCurrent();
        }
    }
}
