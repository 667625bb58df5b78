package io.walsink.table.scan;

import io.walsink.annotation.Internal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;

/**
 * What the scan's and the change stream's readers share: both do their I/O on the task thread
 * inside {@code pollNext}, one row per poll, so checkpoints pass between rows without a fetcher
 * thread or a hand-over queue (Flink's {@code SourceReaderBase} would add both, and a copy of
 * each row batch into its queue). This base owns the availability future Flink waits on: a poll
 * with nothing to emit parks it until splits arrive, the enumerator has none left, or a timer
 * fires.
 */
@Internal
public abstract class TaskThreadSourceReader<T, S extends SourceSplit> implements SourceReader<T, S> {
    protected final SourceReaderContext context;
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private boolean noMoreSplits;

    protected TaskThreadSourceReader(SourceReaderContext context) {
        this.context = context;
    }

    @Override
    public void start() {
        context.sendSplitRequest();
    }

    /** Whether the enumerator said it has no more splits for this reader. */
    protected final boolean noMoreSplits() {
        return noMoreSplits;
    }

    /** Parks the reader until {@link #wake()}; with {@code wakeAfterNanos} > 0, also until then. */
    protected final InputStatus nothingAvailable(long wakeAfterNanos) {
        if (available.isDone()) {
            available = new CompletableFuture<>();
        }
        if (wakeAfterNanos > 0) {
            CompletableFuture<Void> wake = available;
            CompletableFuture.delayedExecutor(wakeAfterNanos, TimeUnit.NANOSECONDS)
                    .execute(() -> wake.complete(null));
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    /** Lets Flink poll again: splits came or the enumerator has none left. */
    protected final void wake() {
        available.complete(null);
    }

    @Override
    public final CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        wake();
    }
}
