package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.shard.OffHeapAllocators;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * The runner on local disk at a tiny size (every row written, WAL entries made, one shard
 * replayed), and its table's arithmetic for a store behind the proxy. The S3 stores need a running
 * S3-protocol server, which this module's tests do not start; {@code LatencyProxyTest} covers the
 * proxy itself.
 */
class S3LatencyReportTest {
    @Test
    void aLocalRunWritesEveryRowAndReplaysOneShardsShare() throws Exception {
        try (BufferAllocator allocator = OffHeapAllocators.root(Long.MAX_VALUE)) {
            List<VectorSchemaRoot> batches = EngineBatches.generate(allocator, 8_192, 1024, 1_000, 3);
            try {
                S3LatencyReport.Outcome o = S3LatencyReport.run(
                        new S3LatencyReport.Store("local disk", false, 0, 0, 0),
                        URI.create("http://unused:1"),
                        "unused",
                        allocator,
                        batches,
                        2,
                        10,
                        3);

                assertThat(o.rows()).isEqualTo(8_192);
                assertThat(o.walAppends()).isPositive();
                assertThat(o.walBytes()).isPositive();
                assertThat(o.replayedRows()).isEqualTo(4_096);
                assertThat(o.replayedEntries()).isPositive();
                assertThat(o.requests()).isEmpty();
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    @Test
    void requestsArePerGigabyteOfWalAndLocalDiskHasNone() {
        S3LatencyReport.Store s3 = new S3LatencyReport.Store("S3 + 20-60 ms", true, 20, 60, 0.01);
        S3LatencyReport.Outcome counted = new S3LatencyReport.Outcome(
                s3,
                1_000_000,
                4,
                2_000_000_000L,
                80,
                500_000_000L,
                1_000_000_000L,
                Map.of(LatencyProxy.Kind.PUT, 100L, LatencyProxy.Kind.GET, 30L),
                3,
                500_000_000L,
                250_000,
                20,
                31);
        S3LatencyReport.Outcome local = new S3LatencyReport.Outcome(
                new S3LatencyReport.Store("local disk", false, 0, 0, 0),
                1_000_000,
                4,
                1_000_000_000L,
                40,
                500_000_000L,
                1_000_000_000L,
                Map.of(),
                0,
                100_000_000L,
                250_000,
                20,
                0);

        assertThat(counted.rowsPerSecond()).isEqualTo(500_000);
        assertThat(counted.walPutsPerShardSecond()).isEqualTo(10);
        assertThat(counted.perGb(LatencyProxy.Kind.PUT)).isEqualTo(200);
        assertThat(counted.perGb(LatencyProxy.Kind.LIST)).isZero();
        String table = S3LatencyReport.render(1_000_000, 4, 100, 42, List.of(local, counted));
        assertThat(table).contains("bound: 10.0 PUTs per shard per s", "S3 + 20-60 ms", "local disk", "250000 / 20");
    }
}
