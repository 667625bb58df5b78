package io.walsink.maintenance.gc;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import io.walsink.format.manifest.ShardFieldEntry;
import io.walsink.format.manifest.ShardManifest;
import io.walsink.storage.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the live consumer records of a table ask garbage collection to keep beyond its retention
 * (see {@link ConsumerRecord}); a record written longer ago than the expiration is not live. A
 * shard that a live record's bucket owns but the record does not list is one its read has not
 * found yet and will read from its first version, so it is kept whole.
 */
final class ConsumerNeeds {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerNeeds.class);
    private static final int NO_BUCKET = -1;

    private final List<ConsumerRecord> live;
    private final List<ConsumerRecord> expired;
    private final Duration expiration;

    private ConsumerNeeds(List<ConsumerRecord> live, List<ConsumerRecord> expired, Duration expiration) {
        this.live = live;
        this.expired = expired;
        this.expiration = expiration;
    }

    static ConsumerNeeds read(ObjectStore store, Instant now, Duration expiration) {
        List<ConsumerRecord> live = new ArrayList<>();
        List<ConsumerRecord> expired = new ArrayList<>();
        Instant cutoff = now.minus(expiration);
        for (ConsumerRecords.Stored stored : ConsumerRecords.readAll(store)) {
            (stored.record().writtenAt().isBefore(cutoff) ? expired : live).add(stored.record());
        }
        return new ConsumerNeeds(live, expired, expiration);
    }

    /**
     * What the live consumers need of one shard: the manifest versions from {@code
     * manifestVersion}, and the SSTable folders of the generations after {@code emittedThrough};
     * both {@code Long.MAX_VALUE} when no live consumer reads the shard.
     */
    record Need(long manifestVersion, long emittedThrough) {}

    Need of(UUID shard, int bucket) {
        long version = Long.MAX_VALUE;
        long through = Long.MAX_VALUE;
        for (ConsumerRecord r : live) {
            Optional<ConsumerRecord.Position> p = r.position(shard);
            if (p.isPresent()) {
                version = Math.min(version, p.get().manifestVersion());
                through = Math.min(through, p.get().emittedThrough());
            } else if (owns(r, bucket)) {
                version = 1;
                through = 0;
            }
        }
        return new Need(version, through);
    }

    /** The oldest base table version a live consumer's snapshot is pinned at. */
    OptionalLong baseVersion() {
        return live.stream()
                .map(ConsumerRecord::baseVersion)
                .filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong)
                .min();
    }

    /** The bucket a shard's manifest names, {@code -1} if none (as the continuous read decides a shard's split). */
    static int bucketOf(ShardManifest manifest) {
        for (ShardFieldEntry e : manifest.shardFieldEntries()) {
            if (e.fieldId().equals(ShardFieldEntry.BUCKET_FIELD_ID)
                    && e.int32Value().isPresent()) {
                return e.int32Value().getAsInt();
            }
        }
        return NO_BUCKET;
    }

    private static boolean owns(ConsumerRecord record, int bucket) {
        return record.bucket() == NO_BUCKET || record.bucket() == bucket;
    }

    List<ConsumerRecord> expired() {
        return expired;
    }

    /** Removes the expired records (they protect nothing any more), saying so. */
    int removeExpired(ObjectStore store, boolean dryRun) {
        for (ConsumerRecord r : expired) {
            LOG.info(
                    "{} the record of consumer '{}' for split {}: written at {}, more than the consumer expiration"
                            + " {} ago, so garbage collection no longer keeps what that read needs",
                    dryRun ? "Would remove" : "Removing",
                    r.consumerId(),
                    r.split(),
                    r.writtenAt(),
                    expiration);
            if (!dryRun) {
                ConsumerRecords.delete(store, r);
            }
        }
        return expired.size();
    }
}
