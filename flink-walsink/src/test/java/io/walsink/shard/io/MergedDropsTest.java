package io.walsink.shard.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When merged SSTables may leave a manifest, on a simulated clock. */
class MergedDropsTest {
    private long now = 1_000;

    private MergedDrops drops(Duration delay) {
        return new MergedDrops(delay, () -> now);
    }

    @Test
    void withoutADelayWhatIsMergedLeavesAtOnce() {
        MergedDrops drops = drops(Duration.ZERO);
        assertThat(drops.dropThrough(3)).isEqualTo(3);
        assertThat(drops.dropThrough(5)).isEqualTo(5);
    }

    @Test
    void aMergeLeavesOnceTheDelayHasPassedSinceItWasFirstSeen() {
        MergedDrops drops = drops(Duration.ofSeconds(10));
        assertThat(drops.dropThrough(3)).as("first seen").isZero();
        now += Duration.ofSeconds(5).toNanos();
        assertThat(drops.dropThrough(5)).as("3 seen 5 s ago, 5 just now").isZero();
        now += Duration.ofSeconds(5).toNanos() - 1;
        assertThat(drops.dropThrough(5)).as("1 ns before the delay").isZero();
        now += 1;
        assertThat(drops.dropThrough(5)).as("3 seen 10 s ago").isEqualTo(3);
        now += Duration.ofSeconds(5).toNanos();
        assertThat(drops.dropThrough(5)).as("5 seen 10 s ago").isEqualTo(5);
    }

    @Test
    void nothingLeavesBeyondWhatTheLatestReadSaysIsMerged() {
        MergedDrops drops = drops(Duration.ofSeconds(1));
        drops.dropThrough(4);
        now += Duration.ofSeconds(2).toNanos();
        assertThat(drops.dropThrough(4)).isEqualTo(4);
        assertThat(drops.dropThrough(0)).as("a failed read of the progress").isZero();
        assertThat(drops.dropThrough(2)).as("a lower progress than before").isEqualTo(2);
        assertThat(drops.dropThrough(4)).isEqualTo(4);
    }

    @Test
    void aProgressSeenAgainKeepsWhenItWasFirstSeen() {
        MergedDrops drops = drops(Duration.ofSeconds(10));
        drops.dropThrough(3);
        for (int i = 0; i < 9; i++) {
            now += Duration.ofSeconds(1).toNanos();
            assertThat(drops.dropThrough(3)).isZero();
        }
        now += Duration.ofSeconds(1).toNanos();
        assertThat(drops.dropThrough(3)).isEqualTo(3);
    }
}
