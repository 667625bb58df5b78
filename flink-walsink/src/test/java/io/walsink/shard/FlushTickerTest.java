package io.walsink.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FlushTickerTest {

    @Test
    void firstRowsAfterIdleAreDueAtOnce() {
        FlushTicker ticker = new FlushTicker(Duration.ofMillis(100));
        assertThat(ticker.dueAt(5_000)).isEqualTo(5_000);
    }

    @Test
    void nextTickIsOneIntervalAfterTheLastRan() {
        FlushTicker ticker = new FlushTicker(Duration.ofMillis(100));
        ticker.ticked(1_000);
        assertThat(ticker.dueAt(1_001)).isEqualTo(1_100);
    }

    @Test
    void aLateTickDoesNotScheduleCatchUpTicks() {
        FlushTicker ticker = new FlushTicker(Duration.ofMillis(100));
        ticker.ticked(1_000);
        // the tick due at 1_100 ran at 1_750 (a slow PUT held the shard)
        ticker.ticked(1_750);
        assertThat(ticker.dueAt(1_750)).isEqualTo(1_850);
        int ticks = 0;
        for (long now = 1_750; now < 2_750; now = ticker.dueAt(now)) {
            ticker.ticked(now);
            ticks++;
        }
        assertThat(ticks).isEqualTo(10);
    }

    @Test
    void rejectsNonPositiveInterval() {
        assertThatThrownBy(() -> new FlushTicker(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flush interval");
    }
}
