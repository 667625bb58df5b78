package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.table.TableLocation;
import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CommitHook;
import io.walsink.recovery.LeaseClaimant;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.compaction.CompactionOptions;

/**
 * One run does a bounded amount of work (a generation budget over all shards, a time
 * budget checked between generations, a stop request) and leaves the rest to the next run; the
 * runs together end at the model.
 */
class CompactorRunBudgetTest {
    private static final int GENERATIONS = 8; // per shard, so 16 in all

    @TempDir
    Path dir;

    @Test
    void aRunMergesAtMostItsGenerationBudgetOverAllShardsAndTheNextContinues() {
        long seed = System.nanoTime();
        System.out.println("CompactorRunBudgetTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            int published = publishSmallGenerations(f);
            CompactorOptions options = CompactorOptions.defaults().withMaxGenerationsPerRun(5);
            CompactionResult first = f.compactor(options).run();
            assertThat(first.mergedGenerations()).as("seed %s", seed).isEqualTo(5);
            assertThat(first.shards())
                    .as("the shards take turns (seed %s)", seed)
                    .allSatisfy(s -> assertThat(s.mergedGenerations()).isNotEmpty());
            assertThat(first.shards())
                    .anySatisfy(s -> assertThat(s.stoppedBecause()).isPresent());
            int merged = first.mergedGenerations() + runUntilNothingLeft(f, options, 5, seed);
            assertThat(merged).isEqualTo(published);
            assertEqualsModel(f, seed);
        }
    }

    @Test
    void aRunStartsNoGenerationOnceItsTimeBudgetIsSpent() {
        long seed = System.nanoTime();
        System.out.println("CompactorRunBudgetTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            int published = publishSmallGenerations(f);
            AtomicLong nanos = new AtomicLong();
            // Every generation takes a simulated second; a run may start generations for 3 seconds.
            CommitHook slow = (shard, generation, step) -> {
                if (step == CommitHook.Step.MERGE_AND_MARK) {
                    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
                }
            };
            // One generation a commit: the budget is looked at between commits.
            CompactorOptions options = CompactorOptions.defaults()
                    .withMaxRunTime(Duration.ofSeconds(3))
                    .withMaxGenerationsPerCommit(1);
            int merged = 0;
            for (int run = 0; run < published; run++) {
                CompactionResult result = new TableCompaction(
                                new TableLocation(f.store, f.uri, Map.of()),
                                f.allocator,
                                options,
                                LeaseClaimant.standalone("compactor"),
                                TableCompaction.Seams.NONE.withHook(slow).withNanoClock(nanos::get))
                        .run();
                assertThat(result.mergedGenerations())
                        .as("run %s, seed %s", run, seed)
                        .isBetween(0, 3);
                if (result.mergedGenerations() == 0) {
                    break;
                }
                merged += result.mergedGenerations();
            }
            assertThat(merged).as("seed %s", seed).isEqualTo(published);
            assertEqualsModel(f, seed);
        }
    }

    @Test
    void aStopRequestEndsTheRunAfterTheGenerationInProgressAndSkipsHousekeeping() {
        long seed = System.nanoTime();
        System.out.println("CompactorRunBudgetTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            int published = publishSmallGenerations(f);
            CompactorOptions options = CompactorOptions.defaults()
                    .withFileCompaction(CompactionOptions.builder()
                            .withDeferIndexRemap(true)
                            .build())
                    .withMaxGenerationsPerCommit(1); // the commit in progress is one generation
            AtomicReference<TableCompaction> stopping = new AtomicReference<>();
            CommitHook stopAtFirstCommit =
                    (shard, generation, step) -> stopping.get().requestStop();
            stopping.set(f.compactor(options, stopAtFirstCommit));
            CompactionResult stopped = stopping.get().run();
            assertThat(stopped.mergedGenerations()).as("seed %s", seed).isEqualTo(1);
            assertThat(stopped.fileCompactionRan()).isFalse();
            assertThat(stopping.get().run().mergedGenerations())
                    .as("a run after the request")
                    .isZero();
            int merged = stopped.mergedGenerations() + runUntilNothingLeft(f, options, Integer.MAX_VALUE, seed);
            assertThat(merged).isEqualTo(published);
            assertEqualsModel(f, seed);
        }
    }

    /** Many small generations on both shards; returns how many were published. */
    private static int publishSmallGenerations(CompactionFixture f) {
        List<ShardWriter> writers = f.openAll();
        int published = 0;
        for (int g = 1; g <= GENERATIONS; g++) {
            for (int b = 0; b < CompactionFixture.BUCKETS; b++) {
                f.randomOps(writers.get(b), b, 6, 60, "g" + g);
            }
            CompactionFixture.publishGeneration(writers);
            published += CompactionFixture.BUCKETS;
        }
        writers.forEach(ShardWriter::close);
        return published;
    }

    /** Runs until a run merges nothing; every run within {@code budget}. Returns the generations merged. */
    private static int runUntilNothingLeft(CompactionFixture f, CompactorOptions options, int budget, long seed) {
        int merged = 0;
        for (int run = 0; run < 2 * CompactionFixture.BUCKETS * GENERATIONS; run++) {
            int now = f.compactor(options).run().mergedGenerations();
            assertThat(now).as("run %s, seed %s", run, seed).isLessThanOrEqualTo(budget);
            if (now == 0) {
                return merged;
            }
            merged += now;
        }
        throw new AssertionError("compaction never finished (seed " + seed + ")");
    }

    private static void assertEqualsModel(CompactionFixture f, long seed) {
        List<Map<String, Object>> expected = f.modelRows();
        assertThat(f.baseRows()).as("the base table alone, seed %s", seed).isEqualTo(expected);
        assertThat(f.read(ReadMode.COMMITTED)).as("COMMITTED, seed %s", seed).isEqualTo(expected);
    }
}
