package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands the pending splits to readers as they ask; a reader that asks when none is left is done.
 * The splits are fixed when the source starts (the bounded scan's, and the continuous read's,
 * which find new shards themselves), so nothing is discovered here.
 */
@Internal
public final class TableScanEnumerator<S extends SourceSplit> implements SplitEnumerator<S, List<S>> {
    private final SplitEnumeratorContext<S> context;
    private final Deque<S> pending;

    public TableScanEnumerator(SplitEnumeratorContext<S> context, Collection<S> pending) {
        this.context = context;
        this.pending = new ArrayDeque<>(pending);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        if (!context.registeredReaders().containsKey(subtask)) {
            return; // a request of a reader that failed meanwhile: its restored attempt asks again
        }
        S next = pending.poll();
        if (next != null) {
            context.assignSplit(next, subtask);
        } else {
            context.signalNoMoreSplits(subtask);
        }
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtask) {
        splits.forEach(pending::addFirst);
    }

    @Override
    public void addReader(int subtask) {
        // readers ask for splits themselves
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
        return new ArrayList<>(pending);
    }

    @Override
    public void close() {}
}
