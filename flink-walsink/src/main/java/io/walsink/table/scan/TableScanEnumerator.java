package io.walsink.table.scan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/** Hands the pending splits to readers as they ask; a reader that asks when none is left is done. */
final class TableScanEnumerator implements SplitEnumerator<TableScanSplit, List<TableScanSplit>> {
    private final SplitEnumeratorContext<TableScanSplit> context;
    private final Deque<TableScanSplit> pending;

    TableScanEnumerator(SplitEnumeratorContext<TableScanSplit> context, Collection<TableScanSplit> pending) {
        this.context = context;
        this.pending = new ArrayDeque<>(pending);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        TableScanSplit next = pending.poll();
        if (next != null) {
            context.assignSplit(next, subtask);
        } else {
            context.signalNoMoreSplits(subtask);
        }
    }

    @Override
    public void addSplitsBack(List<TableScanSplit> splits, int subtask) {
        splits.forEach(pending::addFirst);
    }

    @Override
    public void addReader(int subtask) {
        // readers ask for splits themselves
    }

    @Override
    public List<TableScanSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(pending);
    }

    @Override
    public void close() {}
}
