package io.walsink.maintenance.compaction;

import io.walsink.format.manifest.ManifestStore;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.format.manifest.SsTable;
import io.walsink.format.table.MergedGenerations;
import io.walsink.maintenance.CompactionResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.lance.Dataset;
import org.slf4j.Logger;

/**
 * One shard's part of a compaction run: the generations its latest manifest lists that are
 * not merged yet, oldest first, handed out one at a time when the run gives the shard its turn.
 */
final class ShardMerges {
    private static final Logger LOG = CompactionLog.LOG;

    private final UUID shard;
    private final ManifestStore manifests;
    private final ArrayDeque<SsTable> pending;
    private final List<Long> done = new ArrayList<>();
    private long upserted;
    private long deleted;
    private long nanos;
    private String stopped;

    private ShardMerges(UUID shard, ManifestStore manifests, List<SsTable> pending, String stopped) {
        this.shard = shard;
        this.manifests = manifests;
        this.pending = new ArrayDeque<>(pending);
        this.stopped = stopped;
    }

    /** Only what a published manifest lists, oldest first, nothing merged already, at most {@code maxPerShard}. */
    static ShardMerges plan(ManifestStore manifests, UUID shard, long mergedThrough, int maxPerShard) {
        List<SsTable> candidates = manifests.readLatest().map(ShardManifest::sstables).orElse(List.of()).stream()
                .filter(t -> t.generation() > mergedThrough)
                .sorted(Comparator.comparingLong(SsTable::generation))
                .toList();
        if (candidates.size() <= maxPerShard) {
            return new ShardMerges(shard, manifests, candidates, null);
        }
        return new ShardMerges(
                shard,
                manifests,
                candidates.subList(0, maxPerShard),
                "the limit of " + maxPerShard + " generations per shard and run");
    }

    boolean hasNext() {
        return !pending.isEmpty();
    }

    UUID shard() {
        return shard;
    }

    /**
     * The oldest pending generation, taken off the list; empty, and the shard's part ended, when a
     * restore rolled it back meanwhile (it is no longer in the latest manifest).
     */
    Optional<SsTable> next() {
        SsTable t = pending.poll();
        if (stillListed(t)) {
            return Optional.of(t);
        }
        stopped = "generation " + t.generation() + " (" + t.path() + ") is no longer in the latest manifest";
        LOG.warn("Shard {}: {}; stopping this shard's merges", shard, stopped);
        pending.clear();
        return Optional.empty();
    }

    /** Rows of the oldest pending generation as its manifest entry counts them; empty when unknown. */
    OptionalLong nextRows() {
        SsTable t = pending.peek();
        return t == null ? OptionalLong.empty() : t.physicalRows();
    }

    /** {@code t}, taken by {@link #next}, was merged by this run: {upserted rows, deleted keys}. */
    void merged(SsTable t, long[] counts) {
        done.add(t.generation());
        upserted += counts[0];
        deleted += counts[1];
    }

    /** Time this shard's merges took; a commit of several shards' generations counts for each. */
    void spent(long nanos) {
        this.nanos += nanos;
    }

    /** The run ends before this shard's part: what is pending waits for the next run. */
    void budgetExhausted(String reason) {
        if (hasNext()) {
            stopped = reason;
            pending.clear();
        }
    }

    CompactionResult.ShardResult result(Dataset base, String tableUri) {
        base.checkoutLatest();
        long through = MergedGenerations.of(base, tableUri).getOrDefault(shard, 0L);
        CompactionResult.ShardResult result = new CompactionResult.ShardResult(
                shard, done, through, upserted, deleted, Optional.ofNullable(stopped), Duration.ofNanos(nanos));
        LOG.info(
                "Shard {}: merged generations {} ({} rows upserted, {} keys deleted), merged through {} in {} ms{}",
                shard,
                done,
                upserted,
                deleted,
                through,
                result.duration().toMillis(),
                stopped == null ? "" : "; stopped at " + stopped);
        return result;
    }

    private boolean stillListed(SsTable t) {
        return manifests
                .readLatest()
                .map(m -> m.sstables().stream()
                        .anyMatch(s ->
                                s.generation() == t.generation() && s.path().equals(t.path())))
                .orElse(false);
    }
}
