package io.walsink.flink;

import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.FaultInjectingObjectStore;
import io.walsink.storage.fault.Operation;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * Failure injection for MiniCluster jobs, shared through statics because the MiniCluster runs in
 * this JVM: a map that fails once at each chosen record, and a store wrapper whose WAL and
 * manifest writes fail at random (half of them after landing) until a shared budget runs out.
 */
public final class FailoverTestSupport {
    /** System property that overrides a test's fixed seed, to replay or vary a run. */
    public static final String SEED_PROPERTY = "walsink.failover.seed";

    public static final Set<Long> FAILED_AT = ConcurrentHashMap.newKeySet();
    static final AtomicLong STORE_FAULT_BUDGET = new AtomicLong();
    /** Every store {@link #flaky} wrapped since the last {@link #reset}, in creation order. */
    static final List<FaultInjectingObjectStore> FLAKY_STORES = new CopyOnWriteArrayList<>();

    private FailoverTestSupport() {}

    public static void reset(long storeFaults) {
        FAILED_AT.clear();
        STORE_FAULT_BUDGET.set(storeFaults);
        FLAKY_STORES.clear();
    }

    /** A job configuration that restarts a failed job at once, up to 100 times. */
    public static Configuration restarting() {
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
        return config;
    }

    /** {@code fixedSeed} unless {@value #SEED_PROPERTY} is set; printed so a failing run can be replayed. */
    public static long seed(String test, long fixedSeed) {
        long seed = Long.getLong(SEED_PROPERTY, fixedSeed);
        System.out.println(test + ": seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")");
        return seed;
    }

    /** Faults that fired in the stores {@link #flaky} wrapped since the last {@link #reset}. */
    static long injectedStoreFaults() {
        return FLAKY_STORES.stream()
                .mapToLong(FaultInjectingObjectStore::injectedFaults)
                .sum();
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

    /**
     * WAL and manifest writes (put-if-absent) fail with {@code probability}: half before reaching
     * the store, half after landing with the acknowledgement lost, until the shared budget of
     * {@link #reset} runs out. Each store the job opens (one per writer subtask and attempt) draws
     * from its own random source, seeded with {@code seed} plus the number of stores wrapped before.
     */
    static WalSinkOptions.StoreWrapper flaky(double probability, long seed) {
        return store -> {
            synchronized (FLAKY_STORES) {
                long storeSeed = seed + 2L * FLAKY_STORES.size();
                FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(store)
                        .faultBudget(STORE_FAULT_BUDGET)
                        .inject(Fault.on(Operation.PUT_IF_ABSENT)
                                .withProbability(probability / 2, storeSeed)
                                .loseAcknowledgement())
                        .inject(Fault.on(Operation.PUT_IF_ABSENT)
                                .withProbability(probability / 2, storeSeed + 1)
                                .failTransiently());
                FLAKY_STORES.add(faulty);
                return faulty;
            }
        };
    }
}
