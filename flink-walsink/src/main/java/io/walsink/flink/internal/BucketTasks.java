package io.walsink.flink.internal;

import io.walsink.shard.ShardWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Starts a bucket's I/O (WAL appends, SSTable writes, manifest updates) through the
 * {@link IoDriver}, at most one of each in flight per shard, and chains what follows from each
 * completion: the next append, the SSTable a durable frozen memtable can become, a requested
 * publication.
 */
final class BucketTasks {
    private final IoDriver io;
    private final ShardWriterMetrics metrics;
    private final LongSupplier clock;
    private final boolean publishWhenWritten;

    /** @param publishWhenWritten without checkpointing, SSTables are published as soon as written */
    BucketTasks(IoDriver io, ShardWriterMetrics metrics, LongSupplier clock, boolean publishWhenWritten) {
        this.io = io;
        this.metrics = metrics;
        this.clock = clock;
        this.publishWhenWritten = publishWhenWritten;
    }

    void startAppend(Bucket b) {
        ShardWriter shard = b.shard;
        shard.beginAppend().ifPresent(append -> {
            Long since = b.oldestPendingSince;
            b.oldestPendingSince = null;
            io.submit(
                    append,
                    () -> {
                        shard.completeAppend(append);
                        metrics.appended(append.bytes(), since == null ? 0 : clock.getAsLong() - since);
                        if (shard.hasPendingRows() && b.oldestPendingSince == null) {
                            b.oldestPendingSince = clock.getAsLong();
                        }
                        if (shard.wantsEarlyAppend()) {
                            startAppend(b);
                        }
                        startFlush(b);
                    },
                    "walsink WAL append");
        });
    }

    void startFlush(Bucket b) {
        ShardWriter shard = b.shard;
        if (!shard.hasFlushableMemtable()) {
            return;
        }
        shard.beginFlush()
                .ifPresent(flush -> io.submit(
                        flush,
                        () -> {
                            shard.completeFlush(flush);
                            metrics.sstableWritten();
                            if (publishWhenWritten) {
                                requestPublication(b, Long.MAX_VALUE);
                            }
                            startFlush(b);
                        },
                        "walsink SSTable write"));
    }

    void requestPublication(Bucket b, long upToGeneration) {
        b.requestPublication(upToGeneration);
        startPublication(b);
    }

    private void startPublication(Bucket b) {
        ShardWriter shard = b.shard;
        Long upTo = b.publishUpTo;
        if (upTo == null || shard.manifestUpdateInFlight()) {
            return; // an update in flight starts the next one when it completes
        }
        if (shard.unpublished().stream().noneMatch(t -> t.generation() <= upTo)) {
            b.publishUpTo = null;
            return;
        }
        shard.beginPublish(upTo)
                .ifPresent(update -> io.submit(
                        update,
                        () -> {
                            shard.completeManifestUpdate(update);
                            metrics.sstablesPublished(update.publishing().size());
                            b.ages.published(update.publishing().size(), clock.getAsLong(), metrics::published);
                            startPublication(b);
                        },
                        "walsink manifest update"));
    }

    /** Appends every pending row of every shard and waits until all of it is durable. */
    void drainAppends(Collection<Bucket> buckets) throws InterruptedException {
        while (true) {
            boolean busy = false;
            for (Bucket b : buckets) {
                ShardWriter shard = b.shard;
                if (!shard.appendInFlight() && shard.hasPendingRows()) {
                    startAppend(b);
                }
                busy |= shard.appendInFlight() || shard.hasPendingRows();
            }
            if (!busy) {
                return;
            }
            io.yieldOnce();
        }
    }

    /**
     * Bounded visibility: freezes the memtables holding rows older than {@code maxAgeMillis} and
     * waits until they are SSTables, so the checkpoint about to be taken covers (and publishes) them.
     */
    void flushAged(Collection<Bucket> buckets, long now, long maxAgeMillis) throws InterruptedException {
        List<Bucket> aged = new ArrayList<>();
        for (Bucket b : buckets) {
            if (b.ages.activeOlderThan(now, maxAgeMillis)) {
                b.ages.freeze(b.shard, now);
                aged.add(b);
            }
        }
        if (!aged.isEmpty()) {
            drainFlushes(aged);
        }
    }

    /**
     * Makes every row durable and every memtable, the active ones too, an SSTable, and waits for
     * all of it: at the end of input, and at a stop-with-savepoint, after which no checkpoint
     * comes that could publish a memtable left for later.
     */
    void writeEverything(Collection<Bucket> buckets, long now) throws InterruptedException {
        drainAppends(buckets);
        for (Bucket b : buckets) {
            b.ages.freeze(b.shard, now);
        }
        drainAppends(buckets);
        drainFlushes(buckets);
    }

    /** Writes every frozen memtable as an SSTable and waits for all of them. */
    void drainFlushes(Collection<Bucket> buckets) throws InterruptedException {
        buckets.forEach(this::startFlush);
        io.yieldUntil(() -> buckets.stream().allMatch(b -> b.shard.frozenMemtables() == 0 && !b.shard.flushInFlight()));
    }

    /** Waits until every requested publication is in a manifest. */
    void awaitPublications(Collection<Bucket> buckets) throws InterruptedException {
        io.yieldUntil(() -> buckets.stream().allMatch(b -> b.publishUpTo == null && !b.shard.manifestUpdateInFlight()));
    }
}
