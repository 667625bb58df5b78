package io.walsink.flink;

import io.walsink.format.table.TableNotFoundException;
import io.walsink.read.ReadMode;
import io.walsink.testing.CountingObjectStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.util.Collector;

/**
 * The interleaving {@code WalSinkFailoverTest#aRestartBeforeTheFirstCheckpointRollsBackTheFailedAttemptsRows}
 * needs, brought about by synchronisation rather than timing, and counted so the test can assert
 * it happened (statics: the MiniCluster runs in the test's JVM):
 *
 * <ol>
 *   <li>The first attempt sends changes {@code 0 .. failAt-1} within one call of its flat-map
 *       (one mailbox action, so no checkpoint can start meanwhile), waits until the table's
 *       LATEST view shows all of them, i.e. they are durable in the WAL, and fails. A checkpoint
 *       that reaches the flat-map before that fails the attempt, which then does not count as
 *       the first: no checkpoint completes until the first attempt failed, so Flink restores
 *       nothing and the source starts over, while the WAL holds the failed attempt's rows.
 *   <li>The next attempt's source stops at each of a few change numbers below {@code failAt}
 *       until a checkpoint has completed and then the test's committed reader has found published
 *       rows: checkpoints publish, and a reader looks, while older changes are re-sent.
 * </ol>
 */
final class RestartBeforeFirstCheckpoint {
    /** Until the attempt that sent changes below {@code failAt} failed. */
    static final AtomicBoolean FIRST_ATTEMPT = new AtomicBoolean();
    /** Attempts that failed at a checkpoint before sending anything. */
    static final AtomicInteger ATTEMPTS_FAILED_AT_A_CHECKPOINT = new AtomicInteger();

    static final AtomicInteger CHECKPOINTS_COMPLETED_IN_FIRST_ATTEMPT = new AtomicInteger();
    /** Checkpoints of later attempts that completed while every change sent was below {@code failAt}. */
    static final AtomicInteger CHECKPOINTS_COMPLETED_WHILE_RESENDING = new AtomicInteger();
    /**
     * Holds of the source released, not by the timeout, but by a committed read that found
     * published rows after a checkpoint completed.
     */
    static final AtomicInteger HOLDS_RELEASED_AFTER_A_READ = new AtomicInteger();

    static final AtomicLong WAL_PUTS_COMPLETED = new AtomicLong();
    /** WAL entries durable when the first attempt failed; -1 until it failed. */
    static final AtomicLong WAL_PUTS_AT_FAILURE = new AtomicLong(-1);

    private static final Object WAL_PUT = new Object();
    static volatile ReadPoller poller;

    private RestartBeforeFirstCheckpoint() {}

    static void reset(ReadPoller committedReader) {
        FIRST_ATTEMPT.set(true);
        ATTEMPTS_FAILED_AT_A_CHECKPOINT.set(0);
        CHECKPOINTS_COMPLETED_IN_FIRST_ATTEMPT.set(0);
        CHECKPOINTS_COMPLETED_WHILE_RESENDING.set(0);
        HOLDS_RELEASED_AFTER_A_READ.set(0);
        WAL_PUTS_COMPLETED.set(0);
        WAL_PUTS_AT_FAILURE.set(-1);
        poller = committedReader;
    }

    /** Wraps the sink's store (after {@code inner}) to signal durable WAL entries. */
    static WalSinkOptions.StoreWrapper signallingWalPuts(WalSinkOptions.StoreWrapper inner) {
        return store -> new CountingObjectStore(inner.wrap(store), key -> {
            WAL_PUTS_COMPLETED.incrementAndGet();
            synchronized (WAL_PUT) {
                WAL_PUT.notifyAll();
            }
        });
    }

    /**
     * In the first attempt: sends changes {@code 0 .. failAt-1} at once when the source's first
     * change arrives, waits until they are durable, and fails. Afterwards passes changes through.
     */
    static final class FirstAttemptFailsAfterItsRowsAreDurable
            implements FlatMapFunction<Long, Long>, CheckpointedFunction {
        private final String table;
        private final ChangeGenerator changes;
        private final long failAt;

        FirstAttemptFailsAfterItsRowsAreDurable(Path table, ChangeGenerator changes, long failAt) {
            this.table = table.toString();
            this.changes = changes;
            this.failAt = failAt;
        }

        @Override
        public void flatMap(Long i, Collector<Long> out) throws InterruptedException {
            if (!FIRST_ATTEMPT.get()) {
                out.collect(i);
                return;
            }
            for (long j = 0; j < failAt; j++) {
                out.collect(j);
            }
            awaitDurable(changes.model(failAt));
            WAL_PUTS_AT_FAILURE.set(WAL_PUTS_COMPLETED.get());
            FIRST_ATTEMPT.set(false);
            throw new IllegalStateException(
                    "injected failure of the uncheckpointed first attempt after change " + (failAt - 1));
        }

        /** Waits, woken by each durable WAL entry, until the table's LATEST view is {@code expected}. */
        private void awaitDurable(Map<Long, String> expected) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long checkedAt = -1;
            while (true) {
                long puts = WAL_PUTS_COMPLETED.get();
                if (puts != checkedAt) {
                    checkedAt = puts;
                    if (latest().equals(expected)) {
                        return;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new IllegalStateException("the first attempt's rows were not durable within 60 s");
                }
                synchronized (WAL_PUT) {
                    if (WAL_PUTS_COMPLETED.get() == checkedAt) {
                        WAL_PUT.wait(left);
                    }
                }
            }
        }

        private Map<Long, String> latest() {
            try {
                return HarnessSupport.read(Path.of(table), ReadMode.LATEST);
            } catch (TableNotFoundException notYetThere) {
                return Map.of();
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            if (FIRST_ATTEMPT.get()) {
                // only before the first change arrived: afterwards flatMap never returns
                ATTEMPTS_FAILED_AT_A_CHECKPOINT.incrementAndGet();
                throw new IllegalStateException("no checkpoint may complete before the first attempt failed");
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}
    }

    /**
     * For a {@code DataGeneratorSource} of change numbers: lets the first attempt run freely; in
     * the attempts after it holds the change numbers in {@code holds} (all below {@code failAt}) until a
     * checkpoint completed and a committed read after it found published rows, or 60 s passed.
     */
    static final class HoldWhileResending implements RateLimiterStrategy<NumberSequenceSplit> {
        private final long failAt;
        private final long[] holds;

        HoldWhileResending(long failAt, long... holds) {
            this.failAt = failAt;
            this.holds = holds;
        }

        @Override
        public RateLimiter<NumberSequenceSplit> createRateLimiter(int parallelism) {
            if (parallelism != 1) {
                throw new IllegalArgumentException("the change numbers must come from one source subtask");
            }
            return new Limiter(!FIRST_ATTEMPT.get());
        }

        private final class Limiter implements RateLimiter<NumberSequenceSplit> {
            private final boolean resending;
            private long acquired; // the change numbers sent or about to be sent: 0 .. acquired-1
            private CompletableFuture<Void> held;
            private boolean releaseRequested;

            Limiter(boolean resending) {
                this.resending = resending;
            }

            @Override
            public CompletionStage<Void> acquire(int permits) {
                long next = acquired; // the reader acquires before it emits change `next`
                acquired += permits;
                if (resending && isHold(next)) {
                    held = new CompletableFuture<Void>().completeOnTimeout(null, 60, TimeUnit.SECONDS);
                    releaseRequested = false;
                    return held;
                }
                return CompletableFuture.completedFuture(null);
            }

            private boolean isHold(long change) {
                for (long h : holds) {
                    if (h == change) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public void notifyCheckpointComplete(long checkpointId) {
                if (FIRST_ATTEMPT.get()) {
                    CHECKPOINTS_COMPLETED_IN_FIRST_ATTEMPT.incrementAndGet();
                    return;
                }
                if (!resending) {
                    return;
                }
                if (acquired <= failAt) {
                    CHECKPOINTS_COMPLETED_WHILE_RESENDING.incrementAndGet();
                }
                CompletableFuture<Void> waiting = held;
                if (waiting != null && !waiting.isDone() && !releaseRequested) {
                    releaseRequested = true;
                    poller.afterReads(rows -> {
                        if (rows.isEmpty()) {
                            return false; // the publication this checkpoint started may still be on its way
                        }
                        if (waiting.complete(null)) {
                            HOLDS_RELEASED_AFTER_A_READ.incrementAndGet();
                        }
                        return true;
                    });
                }
            }
        }
    }
}
