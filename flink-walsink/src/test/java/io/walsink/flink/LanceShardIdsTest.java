package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.idInBucket;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.shards;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.manifest.LegacyShardIdsException;
import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.OverlappingShardsException;
import io.walsink.format.manifest.ShardClaimer;
import io.walsink.format.manifest.ShardPlacement;
import io.walsink.format.sharding.ShardIds;
import io.walsink.format.table.LanceTables;
import io.walsink.read.ReadMode;
import io.walsink.storage.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer puts bucket {@code b} into the shard Lance's writers derive for it, and
 * refuses tables whose shards would make it (or them) hold one key in two shards.
 */
class LanceShardIdsTest {
    @TempDir
    Path dir;

    private Path table() {
        return dir.resolve("table");
    }

    private WalSink<RowData> sink() {
        return WalSink.forRowData(ROW)
                .path(table().toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .build();
    }

    private int specId() {
        return LanceTables.open(table().toString(), Map.of()).sharding().specId();
    }

    @Test
    void eachBucketIsWrittenIntoLancesShardForIt() throws Exception {
        WalSink<RowData> sink = sink();
        try (SinkHarness h = SinkHarness.of(sink)) {
            h.open();
            h.processElement(upsert(idInBucket(sink, 0), "zero"), 0);
            h.processElement(upsert(idInBucket(sink, 1), "one"), 0);
            h.prepareSnapshotPreBarrier(1);
        }
        assertThat(shards(table())).containsExactlyInAnyOrder(ShardIds.bucket(0), ShardIds.bucket(1));
        assertThat(read(table(), ReadMode.LATEST)).hasSize(2);
    }

    @Test
    void anAppendOnlyTableIsWrittenIntoLancesUnshardedShard() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table().toString())
                .createTableIfMissing(1)
                .flushInterval(Duration.ofMillis(100))
                .build();
        try (SinkHarness h = SinkHarness.of(sink)) {
            h.open();
            h.processElement(upsert(1, "a"), 0);
            h.processElement(upsert(1, "b"), 0);
            h.prepareSnapshotPreBarrier(1);
        }
        assertThat(shards(table())).containsExactly(ShardIds.unsharded());
    }

    @Test
    void aTableWithThePreviousReleasesShardIdsIsRefusedNamingThemAndTheMigration() throws Exception {
        WalSink<RowData> sink = sink();
        UUID legacy = ShardIds.legacyBucket(specId(), 1);
        new ShardClaimer(new ManifestStore(new LocalObjectStore(table()), legacy))
                .claim(ShardPlacement.bucket(specId(), 1));

        SinkHarness h = SinkHarness.of(sink);
        try {
            assertThatThrownBy(h::open)
                    .rootCause()
                    .isInstanceOf(LegacyShardIdsException.class)
                    .hasMessageContaining("bucket 1: shard " + legacy)
                    .hasMessageContaining(ShardIds.bucket(1).toString())
                    .hasMessageContaining("walsink migrate-shard-ids");
        } finally {
            h.closeWithoutFinish(); // as Flink after a failed open: no finish()
        }
        assertThat(shards(table())).as("nothing claimed").containsExactly(legacy);
    }

    @Test
    void overlappingShardsAreRefusedNamingThem() throws Exception {
        WalSink<RowData> sink = sink();
        LocalObjectStore store = new LocalObjectStore(table());
        Random random = new Random(18);
        UUID other = new UUID(random.nextLong(), random.nextLong());
        new ShardClaimer(new ManifestStore(store, other)).claim(ShardPlacement.bucket(specId(), 0));
        new ShardClaimer(new ManifestStore(store, ShardIds.bucket(0))).claim(new ShardPlacement(specId(), List.of()));

        SinkHarness h = SinkHarness.of(sink);
        try {
            assertThatThrownBy(h::open)
                    .rootCause()
                    .isInstanceOf(OverlappingShardsException.class)
                    .hasMessageContaining("bucket 0")
                    .hasMessageContaining(other.toString())
                    .hasMessageContaining(ShardIds.bucket(0).toString());
        } finally {
            h.closeWithoutFinish();
        }
        assertThat(shards(table())).isEqualTo(Set.of(other, ShardIds.bucket(0)));
    }
}
