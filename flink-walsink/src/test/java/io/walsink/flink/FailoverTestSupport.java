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
final class FailoverTestSupport {
    static final Set<Long> FAILED_AT = ConcurrentHashMap.newKeySet();
    static final AtomicLong STORE_FAULT_BUDGET = new AtomicLong();

    private FailoverTestSupport() {}

    static void reset(long storeFaults) {
        FAILED_AT.clear();
        STORE_FAULT_BUDGET.set(storeFaults);
    }

    /** Fails the task the first time it sees each of the given change numbers. */
    static final class FailOnceAt implements MapFunction<Long, Long> {
        private final long[] failAt;

        FailOnceAt(long... failAt) {
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
