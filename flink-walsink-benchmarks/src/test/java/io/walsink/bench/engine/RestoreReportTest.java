package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.OffHeapAllocators;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * The runner on local disk at a tiny size: every timed restore, one at a time and side by side,
 * replays every shard's WAL tail, and the table names both kinds. The S3 store needs a running
 * S3-protocol server, which this module's tests do not start.
 */
class RestoreReportTest {
    @Test
    void everyRestoreReplaysEveryShardsTailInBothKinds() {
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> rows = EngineBatches.generate(allocator, 3_000, 1024, 3_000, 5);
            try {
                List<RestoreReport.Turn> turns =
                        RestoreReport.measure("local disk", null, null, allocator, rows, 3, 2, 2);

                List<RestoreReport.Turn> firstOpens = turns.subList(0, 2);
                assertThat(firstOpens)
                        .extracting(RestoreReport.Turn::parallelism)
                        .containsExactly(1, 2);
                assertThat(firstOpens).allSatisfy(t -> {
                    assertThat(t.store()).isEqualTo("local disk, first open of new shards");
                    assertThat(t.nanos()).isPositive();
                    assertThat(t.replayedRows()).isZero();
                });
                List<RestoreReport.Turn> restores = turns.subList(2, turns.size());
                assertThat(restores).extracting(RestoreReport.Turn::parallelism).containsExactly(1, 2, 2, 1);
                assertThat(restores).allSatisfy(t -> {
                    assertThat(t.replayedRows()).isEqualTo(3 * 3_000);
                    assertThat(t.nanos()).isPositive();
                    assertThat(t.requests()).isZero();
                });
                String table = RestoreReport.render(3, 3_000, 1024, 5, turns);
                assertThat(table).contains("Restore of 3 shards").contains("local disk");
                assertThat(table.lines().filter(l -> l.startsWith("local disk ")))
                        .hasSize(2);
                assertThat(table).contains("local disk, first open of new shards");
            } finally {
                rows.forEach(VectorSchemaRoot::close);
            }
        }
    }
}
