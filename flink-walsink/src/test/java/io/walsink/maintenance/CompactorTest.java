package io.walsink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.compaction.CompactionFixture;
import io.walsink.shard.ShardWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's entry as a user holds it: {@link Compactor#open} keeps a table open for runs that a
 * stop request ends, and closing it releases the table for the next compactor (its lease included).
 */
class CompactorTest {
    @TempDir
    Path dir;

    @Test
    void anOpenedCompactorMergesNothingOnceStoppedAndTheNextOneMergesEverything() {
        try (CompactionFixture f = new CompactionFixture(dir, 11)) {
            List<ShardWriter> writers = f.openAll();
            f.randomOps(writers, 60, 40, "g1");
            CompactionFixture.publishGeneration(writers);

            try (Compactor stopped = Compactor.open(f.uri, null, CompactorOptions.defaults())) {
                stopped.requestStop();
                assertThat(stopped.run().mergedGenerations()).isZero();
            }
            try (Compactor compactor = Compactor.open(f.uri, null, CompactorOptions.defaults())) {
                assertThat(compactor.run().mergedGenerations()).isPositive();
            }

            assertThat(f.baseRows()).isEqualTo(f.modelRows());
        }
    }
}
