package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.maintenance.CompactionResult;
import io.walsink.maintenance.CompactorOptions;
import io.walsink.read.ReadMode;
import io.walsink.recovery.CompactionLease;
import io.walsink.recovery.CompactionLeaseException;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** One compactor per table, enforced: a second one started while the first commits is refused. */
class CompactorLeaseTest {
    @TempDir(cleanup = CleanupMode.NEVER)
    Path dir;

    @Test
    void aSecondCompactorStartedWhileTheFirstCommitsIsRefusedAndTheFirstEndsAtTheModel() {
        long seed = System.nanoTime();
        System.out.println("CompactorLeaseTest seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            for (int generation = 1; generation <= 3; generation++) {
                f.randomOps(writers, 100, 40, "g" + generation);
                CompactionFixture.publishGeneration(writers);
            }
            List<Map<String, Object>> expected = f.modelRows();
            AtomicReference<Throwable> second = new AtomicReference<>();
            TableCompaction first = f.compactor(CompactorOptions.defaults(), (shard, generation, step) -> {
                if (second.get() == null) {
                    try {
                        f.compactor(CompactorOptions.defaults()).run();
                        second.set(new AssertionError("the second compactor ran"));
                    } catch (RuntimeException e) {
                        second.set(e);
                    }
                }
            });

            CompactionResult result = first.run();

            assertThat(second.get())
                    .as("the hook ran the second compactor")
                    .isInstanceOf(CompactionLeaseException.class)
                    .hasMessageContaining("holds the compaction lease");
            assertThat(result.mergedGenerations()).isEqualTo(6);
            assertThat(f.baseRows()).as("seed %s", seed).isEqualTo(expected);
            assertThat(f.read(ReadMode.COMMITTED)).as("seed %s", seed).isEqualTo(expected);
            // Released at the end: the next run starts at once and finds nothing to merge.
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isZero();
            writers.forEach(ShardWriter::close);
        }
    }

    @Test
    void aLeaseHeldElsewhereRefusesTheRunBeforeAnyCommit() {
        long seed = System.nanoTime();
        System.out.println("CompactorLeaseTest held seed " + seed);
        try (CompactionFixture f = new CompactionFixture(dir, seed)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 100, 40, "g1");
            CompactionFixture.publishGeneration(writers);
            List<Map<String, Object>> before = f.baseRows();
            try (CompactionLease held = CompactionLease.acquire(
                    f.store, f.uri, "standalone-compactor", Duration.ofMinutes(5), System::currentTimeMillis)) {
                assertThatThrownBy(
                                () -> f.compactor(CompactorOptions.defaults()).run())
                        .isInstanceOf(CompactionLeaseException.class)
                        .hasMessageContaining("standalone-compactor");
                assertThat(f.merged()).as("nothing merged").isEmpty();
                assertThat(f.baseRows()).isEqualTo(before);
            }
            assertThat(f.compactor(CompactorOptions.defaults()).run().mergedGenerations())
                    .isEqualTo(2);
            writers.forEach(ShardWriter::close);
        }
    }
}
