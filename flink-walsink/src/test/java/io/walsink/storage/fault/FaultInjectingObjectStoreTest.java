package io.walsink.storage.fault;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.storage.InMemoryObjectStore;
import io.walsink.storage.OutcomeUnknownException;
import io.walsink.storage.RecordingSleeper;
import io.walsink.storage.StorageException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FaultInjectingObjectStoreTest {
    private final InMemoryObjectStore memory = new InMemoryObjectStore();
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory, sleeper);

    @Test
    void failsOnlyTheNthCallOfTheChosenOperation() {
        memory.put("k", bytes("v"));
        store.inject(Fault.on(Operation.GET).nthCall(2).failTransiently());

        store.head("k");
        store.get("k");
        assertThatThrownBy(() -> store.get("k"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("injected failure of GET call 2")
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isTrue());
        assertThat(store.get("k")).isEqualTo(bytes("v"));
        assertThat(store.injectedFaults()).isEqualTo(1);
    }

    @Test
    void nthCallOfAnyOperationCountsEveryKind() {
        store.inject(Fault.onAnyOperation().nthCall(3).failPermanently());

        store.head("a");
        store.list("", null, 1);
        assertThatThrownBy(() -> store.delete("a"))
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isFalse());
        store.delete("a");
    }

    @Test
    void failedCallsDoNotReachTheStore() {
        store.inject(Fault.on(Operation.PUT_IF_ABSENT).nthCall(1).failTransiently());

        assertThatThrownBy(() -> store.putIfAbsent("k", bytes("v"))).isInstanceOf(StorageException.class);
        assertThat(memory.exists("k")).isFalse();
        assertThat(store.calls(Operation.PUT_IF_ABSENT)).isEqualTo(1);
        assertThat(store.completed(Operation.PUT_IF_ABSENT)).isZero();
    }

    @Test
    void lostAcknowledgementAppliesTheWriteThenReportsAnUnknownOutcome() {
        store.inject(Fault.on(Operation.PUT_IF_ABSENT, Operation.PUT).nthCall(1).loseAcknowledgement());

        assertThatThrownBy(() -> store.putIfAbsent("wal/1", bytes("entry")))
                .isInstanceOf(OutcomeUnknownException.class)
                .satisfies(e -> assertThat(((StorageException) e).isTransient()).isTrue());
        assertThat(memory.get("wal/1")).isEqualTo(bytes("entry"));
        assertThat(store.completed(Operation.PUT_IF_ABSENT)).isEqualTo(1);
    }

    @Test
    void onlyWritesCanLoseTheirAcknowledgement() {
        assertThatThrownBy(
                        () -> Fault.on(Operation.GET, Operation.HEAD).nthCall(1).loseAcknowledgement())
                .isInstanceOf(IllegalArgumentException.class);

        store.inject(Fault.onAnyOperation().nthCall(1).loseAcknowledgement());
        store.head("k"); // reads are not aimed at, so they do not count either
        assertThatThrownBy(() -> store.put("k", bytes("v"))).isInstanceOf(OutcomeUnknownException.class);
    }

    @Test
    void seededProbabilityIsReproducible() {
        List<Integer> first = failingCalls(new FaultInjectingObjectStore(memory), 1234);
        List<Integer> second = failingCalls(new FaultInjectingObjectStore(memory), 1234);
        List<Integer> other = failingCalls(new FaultInjectingObjectStore(memory), 99);

        assertThat(first).isEqualTo(second);
        assertThat(first).isNotEqualTo(other);
        assertThat(first.size()).isBetween(60, 140); // p = 0.1 over 1,000 calls
    }

    @Test
    void probabilityZeroNeverFailsAndOneAlwaysFails() {
        store.inject(Fault.on(Operation.HEAD).withProbability(0, 1).failTransiently());
        for (int i = 0; i < 100; i++) {
            store.head("k");
        }
        store.inject(Fault.on(Operation.HEAD).withProbability(1, 1).failTransiently());
        assertThatThrownBy(() -> store.head("k")).isInstanceOf(StorageException.class);
        assertThatThrownBy(() -> Fault.onAnyOperation().withProbability(1.5, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void clearedFaultsStopFiring() {
        store.inject(Fault.on(Operation.HEAD).everyCall().failTransiently());
        assertThatThrownBy(() -> store.head("k")).isInstanceOf(StorageException.class);

        store.clearFaults();

        assertThat(store.head("k")).isEmpty();
    }

    @Test
    void latencyGoesThroughTheSleeper() {
        store.latency(Duration.ofMillis(250));

        store.head("a");
        store.putIfAbsent("a", bytes("x"));

        assertThat(sleeper.waits()).containsExactly(Duration.ofMillis(250), Duration.ofMillis(250));
    }

    @Test
    void countsEveryOperationSeparately() {
        store.putIfAbsent("a", bytes("1"));
        store.put("b", bytes("2"));
        store.get("a");
        store.getRange("a", 0, 1);
        store.head("a");
        store.list("", null, 10);
        store.delete("b");
        store.delete("b");

        assertThat(store.calls(Operation.PUT_IF_ABSENT)).isEqualTo(1);
        assertThat(store.calls(Operation.PUT)).isEqualTo(1);
        assertThat(store.calls(Operation.GET)).isEqualTo(1);
        assertThat(store.calls(Operation.GET_RANGE)).isEqualTo(1);
        assertThat(store.calls(Operation.HEAD)).isEqualTo(1);
        assertThat(store.calls(Operation.LIST)).isEqualTo(1);
        assertThat(store.calls(Operation.DELETE)).isEqualTo(2);
    }

    @Test
    void concurrentCallsAreCountedExactlyAndAnNthFaultFiresOnce() throws Exception {
        store.inject(Fault.on(Operation.HEAD).nthCall(5_000).failTransiently());
        AtomicInteger failures = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        try {
                            store.head("k");
                        } catch (StorageException e) {
                            failures.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.calls(Operation.HEAD)).isEqualTo(8_000);
        assertThat(failures).hasValue(1);
        assertThat(store.completed(Operation.HEAD)).isEqualTo(7_999);
    }

    private static List<Integer> failingCalls(FaultInjectingObjectStore faulty, long seed) {
        faulty.inject(Fault.on(Operation.HEAD).withProbability(0.1, seed).failTransiently());
        List<Integer> failing = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            try {
                faulty.head("k");
            } catch (StorageException e) {
                failing.add(i);
            }
        }
        return failing;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    @Test
    void aSharedBudgetBoundsTheFaultsOfSeveralStores() {
        java.util.concurrent.atomic.AtomicLong budget = new java.util.concurrent.atomic.AtomicLong(3);
        FaultInjectingObjectStore a = new FaultInjectingObjectStore(new io.walsink.storage.InMemoryObjectStore())
                .faultBudget(budget)
                .inject(Fault.on(Operation.PUT).everyCall().failTransiently());
        FaultInjectingObjectStore b = new FaultInjectingObjectStore(new io.walsink.storage.InMemoryObjectStore())
                .faultBudget(budget)
                .inject(Fault.on(Operation.PUT).everyCall().failTransiently());
        int failures = 0;
        for (int i = 0; i < 10; i++) {
            for (FaultInjectingObjectStore store : java.util.List.of(a, b)) {
                try {
                    store.put("k" + i, new byte[] {1});
                } catch (io.walsink.storage.StorageException e) {
                    failures++;
                }
            }
        }
        org.assertj.core.api.Assertions.assertThat(failures).isEqualTo(3);
        org.assertj.core.api.Assertions.assertThat(a.injectedFaults() + b.injectedFaults())
                .isEqualTo(3);
    }
}
