package io.walsink.flink;

import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.FaultInjectingObjectStore;
import io.walsink.storage.fault.Operation;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * Failure injection for MiniCluster jobs, shared through statics because the MiniCluster runs in
 * this JVM: a map that fails once at each chosen record, and a store wrapper whose WAL and
 * manifest writes fail at random (half of them after landing) until a shared budget runs out.
 */
public final class FailoverTestSupport {
    public static final Set<Long> FAILED_AT = ConcurrentHashMap.newKeySet();
    static final AtomicLong STORE_FAULT_BUDGET = new AtomicLong();

    private FailoverTestSupport() {}

    public static void reset(long storeFaults) {
        FAILED_AT.clear();
        STORE_FAULT_BUDGET.set(storeFaults);
    }

    /** Fails the task the first time it sees each of the given change numbers. */
    public static final class FailOnceAt implements MapFunction<Long, Long> {
        private final long[] failAt;

        public FailOnceAt(long... failAt) {
            this.failAt = failAt;
        }

        @Override
        public Long map(Long i) {
            for (long f : failAt) {
                if (i == f && FAILED_AT.add(f)) {
                    throw new IllegalStateException("injected failure at change " + i);
                }
            }
            return i;
        }
    }

    static final java.util.concurrent.atomic.AtomicBoolean FIRST_ATTEMPT = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * The first attempt declines every checkpoint and fails at change {@code failAt}, so no
     * checkpoint completes before the restart: Flink restores nothing and the source starts over,
     * while the WAL already holds the first attempt's rows. The second attempt goes slowly until
     * it is past them, so its checkpoints publish while it re-sends older changes.
     */
    static final class FailFirstAttemptUncheckpointed implements MapFunction<Long, Long>,
            org.apache.flink.streaming.api.checkpoint.CheckpointedFunction {
        private final long failAt;

        FailFirstAttemptUncheckpointed(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public Long map(Long i) throws InterruptedException {
            if (FIRST_ATTEMPT.get() && i == failAt) {
                FIRST_ATTEMPT.set(false);
                throw new IllegalStateException("injected failure of the uncheckpointed first attempt at change " + i);
            }
            if (!FIRST_ATTEMPT.get() && i < failAt && i % 20 == 0) {
                Thread.sleep(1);
            }
            return i;
        }

        @Override
        public void snapshotState(org.apache.flink.runtime.state.FunctionSnapshotContext context) {
            if (FIRST_ATTEMPT.get()) {
                throw new IllegalStateException("the first attempt declines its checkpoints");
            }
        }

        @Override
        public void initializeState(org.apache.flink.runtime.state.FunctionInitializationContext context) {}
    }

    static WalSinkOptions.StoreWrapper flaky(double probability) {
        return store -> {
            long seed = System.nanoTime();
            return new FaultInjectingObjectStore(store)
                    .faultBudget(STORE_FAULT_BUDGET)
                    .inject(Fault.on(Operation.PUT_IF_ABSENT).withProbability(probability / 2, seed).loseAcknowledgement())
                    .inject(Fault.on(Operation.PUT_IF_ABSENT).withProbability(probability / 2, seed + 1).failTransiently());
        };
    }
}
