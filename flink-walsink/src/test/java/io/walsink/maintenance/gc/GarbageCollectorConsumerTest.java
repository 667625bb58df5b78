package io.walsink.maintenance.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.consumer.ConsumerRecord;
import io.walsink.format.consumer.ConsumerRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage collection and consumer records, in simulated time ({@link GcFixture}: one shard of
 * bucket 0, an hour per step): a live record keeps the manifest versions from the one it names
 * past the retention, a shard of its bucket it does not list yet is kept whole, and an expired
 * record protects nothing and is removed.
 */
class GarbageCollectorConsumerTest {
    private static final GarbageCollector.Options OPTIONS = GarbageCollector.Options.retaining(Duration.ofHours(2))
            .keepingNewest(1)
            .consumerExpiration(Duration.ofHours(10));

    @TempDir
    Path dir;

    /** Eight steps, each publishing one generation: versions 1 (the claim) to 9. */
    private static void publishEightSteps(GcFixture f) {
        for (int step = 0; step < 8; step++) {
            f.beginStep();
            f.put(step, "v" + step);
            f.publishAll();
            f.endStep();
        }
        assertThat(f.manifestVersions()).hasSize(9);
    }

    private static ConsumerRecord record(GcFixture f, int bucket, List<ConsumerRecord.Position> shards) {
        return new ConsumerRecord("etl", "bucket-" + bucket, bucket, f.clock.instant(), OptionalLong.empty(), shards);
    }

    @Test
    void aLiveRecordKeepsTheVersionsFromTheOneItNamesUntilItExpires() {
        try (GcFixture f = new GcFixture(dir)) {
            publishEightSteps(f);
            ConsumerRecords.write(f.store, record(f, 0, List.of(new ConsumerRecord.Position(GcFixture.SHARD, 4, 3))));

            f.collect(OPTIONS);
            assertThat(f.manifestVersions())
                    .as("kept from the record's version")
                    .containsExactly(4L, 5L, 6L, 7L, 8L, 9L);

            f.clock.advance(Duration.ofHours(11));
            f.collect(OPTIONS);
            assertThat(ConsumerRecords.readAll(f.store))
                    .as("the expired record is removed")
                    .isEmpty();
            assertThat(f.manifestVersions()).as("only the latest").containsExactly(9L);
        }
    }

    @Test
    void aShardOfTheRecordsBucketItDoesNotListYetIsKeptWhole() {
        try (GcFixture f = new GcFixture(dir)) {
            publishEightSteps(f);
            ConsumerRecords.write(f.store, record(f, 0, List.of()));
            f.collect(OPTIONS);
            assertThat(f.manifestVersions())
                    .as("bucket 0's read will walk it from version 1")
                    .hasSize(9);
        }
    }

    @Test
    void aRecordOfAnotherBucketKeepsNothingOfTheShard() {
        try (GcFixture f = new GcFixture(dir)) {
            publishEightSteps(f);
            ConsumerRecords.write(f.store, record(f, 1, List.of()));
            f.collect(OPTIONS);
            assertThat(f.manifestVersions())
                    .as("what the retention alone keeps")
                    .containsExactly(6L, 7L, 8L, 9L);
            assertThat(ConsumerRecords.readAll(f.store))
                    .as("a live record stays")
                    .hasSize(1);
        }
    }
}
