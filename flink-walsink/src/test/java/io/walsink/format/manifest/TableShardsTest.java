package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.sharding.ShardIds;
import io.walsink.storage.InMemoryObjectStore;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TableShardsTest {
    private static final int SPEC = 1;
    private static final OptionalInt FOUR = OptionalInt.of(4);

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final Random random = new Random(18);

    private UUID randomShard() {
        return new UUID(random.nextLong(), random.nextLong());
    }

    private void shard(UUID id, int specId, List<ShardFieldEntry> entries) {
        new ManifestStore(store, id)
                .writeFirst(ShardManifest.builder()
                        .version(1)
                        .writerEpoch(1)
                        .currentGeneration(1)
                        .shardId(id)
                        .shardSpecId(specId)
                        .shardFieldEntries(entries)
                        .build());
    }

    private TableShards read(OptionalInt buckets, boolean keyed) {
        return TableShards.read(store, SPEC, buckets, keyed);
    }

    @Test
    void anEmptyTableUsesLancesIds() {
        TableShards shards = read(FOUR, true);

        assertThat(shards.shardOf(2)).isEqualTo(ShardIds.bucket(2));
        assertThat(read(OptionalInt.empty(), true).shardOf(0)).isEqualTo(ShardIds.unsharded());
        assertThat(shards.overlaps()).isEmpty();
        assertThat(shards.legacy()).isEmpty();
    }

    @Test
    void aShardLanceDbOpenedWithoutFieldEntriesIsTheBucketsShard() {
        shard(ShardIds.bucket(2), SPEC, List.of());

        TableShards shards = read(FOUR, true);

        assertThat(shards.shardOf(2)).isEqualTo(ShardIds.bucket(2));
        assertThat(shards.overlaps()).isEmpty();
    }

    @Test
    void aShardAnotherWriterMadeForABucketKeepsIt() {
        UUID other = randomShard();
        shard(other, SPEC, List.of(ShardFieldEntry.bucket(3)));

        TableShards shards = read(FOUR, true);

        assertThat(shards.shardOf(3)).isEqualTo(other);
        assertThat(shards.overlaps()).isEmpty();
    }

    @Test
    void shardsWithThePreviousReleasesIdsAreReportedAsLegacy() {
        UUID legacy = ShardIds.legacyBucket(SPEC, 1);
        shard(legacy, SPEC, List.of(ShardFieldEntry.bucket(1)));
        UUID legacyUnsharded = ShardIds.legacyBucket(SPEC, 0);

        assertThat(read(FOUR, true).legacy()).isEqualTo(Map.of(1, legacy));
        InMemoryObjectStore unshardedTable = new InMemoryObjectStore();
        new ManifestStore(unshardedTable, legacyUnsharded)
                .writeFirst(ShardManifest.builder()
                        .version(1)
                        .writerEpoch(1)
                        .currentGeneration(1)
                        .shardId(legacyUnsharded)
                        .build());
        assertThat(TableShards.read(unshardedTable, SPEC, OptionalInt.empty(), false)
                        .legacy())
                .isEqualTo(Map.of(0, legacyUnsharded));
    }

    /** A LanceDB writer opened Lance's shard beside walsink's legacy one. */
    @Test
    void aLanceIdShardBesideAShardNamingItsBucketOverlaps() {
        UUID legacy = ShardIds.legacyBucket(SPEC, 2);
        shard(legacy, SPEC, List.of(ShardFieldEntry.bucket(2)));
        shard(ShardIds.bucket(2), SPEC, List.of());

        List<String> overlaps = read(FOUR, true).overlaps();

        assertThat(overlaps).hasSize(1);
        assertThat(overlaps.get(0))
                .contains("bucket 2")
                .contains(legacy.toString())
                .contains(ShardIds.bucket(2).toString());
    }

    @Test
    void twoShardsNamingOneBucketOverlap() {
        UUID a = randomShard();
        UUID b = randomShard();
        shard(a, SPEC, List.of(ShardFieldEntry.bucket(0)));
        shard(b, SPEC, List.of(ShardFieldEntry.bucket(0)));
        shard(randomShard(), SPEC, List.of(ShardFieldEntry.bucket(1)));

        List<String> overlaps = read(FOUR, true).overlaps();

        assertThat(overlaps).hasSize(1);
        assertThat(overlaps.get(0)).contains("bucket 0").contains(a.toString()).contains(b.toString());
    }

    @Test
    void entriesOfAnotherSpecDoNotClaimABucket() {
        shard(randomShard(), SPEC + 1, List.of(ShardFieldEntry.bucket(0)));
        shard(ShardIds.bucket(0), SPEC, List.of());

        assertThat(read(FOUR, true).overlaps()).isEmpty();
    }

    @Test
    void twoShardsOfAKeyedUnshardedTableOverlapButAppendOnlyShardsDoNot() {
        UUID other = randomShard();
        shard(other, 0, List.of());
        shard(ShardIds.unsharded(), 0, List.of());

        List<String> overlaps = read(OptionalInt.empty(), true).overlaps();
        assertThat(overlaps).hasSize(1);
        assertThat(overlaps.get(0))
                .contains(other.toString())
                .contains(ShardIds.unsharded().toString());
        assertThat(read(OptionalInt.empty(), false).overlaps()).isEmpty();
    }
}
