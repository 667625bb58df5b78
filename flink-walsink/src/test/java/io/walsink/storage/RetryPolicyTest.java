package io.walsink.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void defaultsAreLanceMemWalValues() {
        assertThat(RetryPolicy.DEFAULT.maxAttempts()).isEqualTo(4);
        assertThat(RetryPolicy.DEFAULT.baseDelay()).isEqualTo(Duration.ofMillis(50));
        assertThat(RetryPolicy.DEFAULT.maxDelay()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void ceilingDoublesUpToTheCap() {
        RetryPolicy policy = RetryPolicy.DEFAULT;

        assertThat(policy.backoffCeiling(1)).isEqualTo(Duration.ofMillis(50));
        assertThat(policy.backoffCeiling(2)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.backoffCeiling(3)).isEqualTo(Duration.ofMillis(200));
        assertThat(policy.backoffCeiling(7)).isEqualTo(Duration.ofMillis(3200));
        assertThat(policy.backoffCeiling(8)).isEqualTo(Duration.ofSeconds(5));
        assertThat(policy.backoffCeiling(1000)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void fullJitterSpreadsDelaysOverTheWholeRange() {
        Random random = new Random(42);
        Set<Long> seen = new HashSet<>();
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 2_000; i++) {
            long delay = RetryPolicy.DEFAULT.delayBeforeRetry(2, random).toMillis();
            assertThat(delay).isBetween(0L, 100L);
            seen.add(delay);
            min = Math.min(min, delay);
            max = Math.max(max, delay);
        }
        assertThat(min).isLessThan(5);
        assertThat(max).isGreaterThan(95);
        assertThat(seen).hasSizeGreaterThan(80);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> RetryPolicy.DEFAULT.withMaxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofMillis(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
