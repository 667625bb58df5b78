package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendAllPending;
import static io.walsink.shard.SyncShardDriver.flushAndPublishAll;
import static io.walsink.shard.SyncShardDriver.flushFrozen;
import static io.walsink.shard.SyncShardDriver.publishAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.read.ReadMode;
import io.walsink.shard.io.ShardPoisonedException;
import io.walsink.shard.io.ShardPoisonedException.Reason;
import io.walsink.storage.RetryPolicy;
import io.walsink.storage.RetryingObjectStore;
import io.walsink.storage.Sleeper;
import io.walsink.storage.fault.Fault;
import io.walsink.storage.fault.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random transient failures, lost acknowledgements and latency under the retry layer: the writer
 * either succeeds or poisons with a typed reason, and a reopen shows exactly what was reported
 * durable (an ambiguous append may or may not have landed, nothing else is uncertain).
 */
class ShardWriterFaultsTest {
    private static final int SEEDS = 32;
    private static final int ROUNDS = 25;
    /** Outcome per run ("clean" or a poison reason), to check that the seeds exercise every path. */
    private static final Map<String, AtomicInteger> OUTCOMES = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    static LongStream seeds() {
        return LongStream.range(0, SEEDS);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void aReopenShowsEverythingReportedDurable(long seed) {
        Sleeper noWait = duration -> {}; // backoff and latency are exercised, not waited for
        ShardWriterConfig config = ShardWriterConfig.defaults();
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, config, noWait)) {
            // Even seeds: mild faults that retries mostly absorb; odd seeds: harsh ones that exhaust them.
            boolean harsh = seed % 2 == 1;
            RetryingObjectStore retrying = new RetryingObjectStore(
                    f.store,
                    new RetryPolicy(harsh ? 2 : 3, Duration.ofMillis(1), Duration.ofMillis(4)),
                    noWait,
                    new Random(seed));
            ShardWriter writer = f.open(f.contextOver(retrying, config));
            f.store.inject(Fault.on(Operation.PUT_IF_ABSENT)
                    .withProbability(0.04, seed)
                    .loseAcknowledgement());
            f.store.inject(Fault.onAnyOperation()
                    .withProbability(harsh ? 0.3 : 0.2, seed + 1_000)
                    .failTransiently());
            f.store.latency(Duration.ofMillis(30));

            Random ops = new Random(seed);
            Map<Long, String> reported = f.modelNow();
            Map<Long, String> ifLastCallLanded = reported;
            ShardPoisonedException poisoned = null;
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < 4; i++) {
                        long id = ops.nextInt(40); // few overwrites, so a lost row stays visible
                        if (ops.nextInt(5) == 0) {
                            f.delete(writer, id);
                        } else {
                            f.put(writer, id, "r" + round + "-" + i);
                        }
                    }
                    // One memtable owes rows, so this is exactly one append: the round lands whole or not at all.
                    ifLastCallLanded = f.modelNow();
                    appendAllPending(writer);
                    reported = ifLastCallLanded;
                    if (ops.nextInt(4) == 0) {
                        writer.freezeActive();
                        flushFrozen(writer);
                        publishAll(writer);
                    }
                }
            } catch (ShardPoisonedException e) {
                poisoned = e;
            }
            f.store.clearFaults();
            f.store.latency(Duration.ZERO);
            OUTCOMES.computeIfAbsent(
                            poisoned == null ? "clean" : poisoned.reason().name(), k -> new AtomicInteger())
                    .incrementAndGet();

            if (poisoned != null) {
                // An SSTable flush places its key index through the same store, so it can fail too.
                assertThat(poisoned.reason())
                        .isIn(Reason.AMBIGUOUS_APPEND, Reason.PERSISTENCE_FAILURE, Reason.FLUSH_FAILED);
                ShardPoisonedException first = poisoned;
                assertThatThrownBy(() -> appendAllPending(writer)).isSameAs(first);
            }
            writer.close();

            ShardWriter reopened = f.open();
            Map<Long, String> recovered = f.read(ReadMode.LATEST);
            if (poisoned != null && poisoned.reason() == Reason.AMBIGUOUS_APPEND) {
                assertThat(recovered).isIn(reported, ifLastCallLanded);
            } else {
                assertThat(recovered).isEqualTo(reported);
            }
            // the recovered shard keeps working from what storage holds
            f.model.clear();
            f.model.putAll(recovered);
            f.put(reopened, 100, "after recovery");
            flushAndPublishAll(reopened);
            assertThat(f.read(ReadMode.COMMITTED)).isEqualTo(f.model);
            reopened.close();
        }
    }

    @AfterAll
    static void theSeedsCoverEveryOutcome() {
        assertThat(OUTCOMES).containsKeys("clean", Reason.AMBIGUOUS_APPEND.name(), Reason.PERSISTENCE_FAILURE.name());
    }
}
