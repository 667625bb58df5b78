package io.walsink.shard;

import static io.walsink.shard.SyncShardDriver.appendOnce;
import static io.walsink.shard.SyncShardDriver.tick;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.format.wal.WalSchemaProfile;
import io.walsink.storage.fault.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WAL PUTs are bounded by the ticker, not by the row rate (simulated time, no sleeping). */
class ShardWriterTickerTest {
    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private ShardFixture fixture() {
        // Latency injected into the store advances the simulated clock instead of sleeping.
        return new ShardFixture(
                dir,
                WalSchemaProfile.SPEC,
                ShardWriterConfig.defaults(),
                duration -> clock.addAndGet(duration.toMillis()));
    }

    /** The owner's timer loop: fire the tick when due, as a processing-time timer would. */
    private static void maybeTick(ShardWriter writer, long now) {
        if (now >= writer.nextTickAt(now)) {
            tick(writer, now);
        }
    }

    @Test
    void tenThousandPutsOverOneSecondMakeAboutTenEntries() {
        try (ShardFixture f = fixture();
                ShardWriter writer = f.open()) {
            long appendsBefore = f.store.completed(Operation.PUT_IF_ABSENT);
            long start = clock.get();
            for (int i = 0; i < 10_000; i++) {
                clock.set(start + i / 10); // 10 rows per simulated millisecond, 1 s in all
                f.put(writer, i % 500, "v" + i);
                maybeTick(writer, clock.get());
            }
            long appends = f.store.completed(Operation.PUT_IF_ABSENT) - appendsBefore;
            assertThat(appends).isBetween(9L, 11L);
            assertThat(writer.stats().walAppends()).isEqualTo(appends);
        }
    }

    @Test
    void tenTimesTheRowsGiveTheSameNumberOfEntries() {
        long slow = appendsFor(1_000);
        long fast = appendsFor(10_000);
        assertThat(fast).isEqualTo(slow);
    }

    private long appendsFor(int rows) {
        try (ShardFixture f = fixture();
                ShardWriter writer = f.open()) {
            long start = clock.get();
            for (int i = 0; i < rows; i++) {
                clock.set(start + (long) i * 1_000 / rows);
                f.put(writer, i, "v");
                maybeTick(writer, clock.get());
            }
            return writer.stats().walAppends();
        } finally {
            dir.resolve("table").toFile().renameTo(dir.resolve("table-" + rows).toFile());
        }
    }

    /** Writes are counted as they start, at the store; the appends run inline, so the counts are exact. */
    @Test
    void noEntriesWhileIdle() {
        try (ShardFixture f = fixture();
                ShardWriter writer = f.open()) {
            f.put(writer, 1, "a");
            long putsBefore = startedPuts(f);
            tick(writer, clock.get());
            assertThat(startedPuts(f)).as("the tick's append").isEqualTo(putsBefore + 1);
            long appends = writer.stats().walAppends();
            long puts = startedPuts(f);
            assertThat(writer.nextTickAt(clock.get())).isEqualTo(Long.MAX_VALUE);
            for (int i = 0; i < 100; i++) {
                clock.addAndGet(100);
                maybeTick(writer, clock.get());
                tick(writer, clock.get()); // even a tick fired regardless appends nothing
            }
            assertThat(startedPuts(f)).as("PUTs started while idle").isEqualTo(puts);
            assertThat(writer.stats().walAppends()).isEqualTo(appends);
        }
    }

    private static long startedPuts(ShardFixture f) {
        return f.store.calls(Operation.PUT_IF_ABSENT) + f.store.calls(Operation.PUT);
    }

    @Test
    void aSlowPutIsFollowedByOneAppendNotABurst() {
        try (ShardFixture f = fixture();
                ShardWriter writer = f.open()) {
            f.put(writer, 1, "a");
            f.store.latency(Duration.ofMillis(450)); // 4.5 intervals
            tick(writer, clock.get());
            f.store.latency(Duration.ZERO);
            long afterSlowPut = clock.get();
            long appendsBefore = writer.stats().walAppends();
            // rows keep arriving every millisecond for the next interval
            for (long now = afterSlowPut; now < afterSlowPut + 99; now++) {
                clock.set(now);
                f.put(writer, now, "b");
                maybeTick(writer, now);
            }
            assertThat(writer.stats().walAppends() - appendsBefore).isEqualTo(1);
        }
    }

    @Test
    void pendingBytesOverTheBufferLimitAskForAnEarlyAppend() {
        ShardWriterConfig small =
                ShardWriterConfig.builder().walMaxBufferBytes(4_096).build();
        try (ShardFixture f = new ShardFixture(dir, WalSchemaProfile.SPEC, small);
                ShardWriter writer = f.open()) {
            f.put(writer, 1, "a");
            assertThat(writer.wantsEarlyAppend()).isFalse();
            for (int i = 0; i < 2_000 && !writer.wantsEarlyAppend(); i++) {
                f.put(writer, i, "x".repeat(16));
            }
            assertThat(writer.wantsEarlyAppend()).isTrue();
            appendOnce(writer);
            assertThat(writer.wantsEarlyAppend()).isFalse();
        }
    }
}
