package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: before retry {@code r} (1-based) wait a uniformly random
 * time in {@code [0, min(maxDelay, baseDelay * 2^(r-1))]}. Full jitter spreads writers that failed
 * together (a throttled bucket) instead of having them retry in lockstep.
 *
 * @param maxAttempts total attempts including the first one (1 means no retry)
 */
@Internal
public record RetryPolicy(int maxAttempts, Duration baseDelay, Duration maxDelay) {

    /** Lance's MemWAL values: base 50 ms, cap 5 s, 3 retries. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(4, Duration.ofMillis(50), Duration.ofSeconds(5));

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (baseDelay.isNegative() || maxDelay.isNegative()) {
            throw new IllegalArgumentException("retry delays must not be negative");
        }
    }

    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(attempts, baseDelay, maxDelay);
    }

    /** The upper bound of the wait before retry {@code retry} (1-based). */
    public Duration backoffCeiling(int retry) {
        long base = baseDelay.toMillis();
        int doublings = Math.min(retry - 1, 62);
        long ceiling = base > (Long.MAX_VALUE >> doublings) ? Long.MAX_VALUE : base << doublings;
        return Duration.ofMillis(Math.min(ceiling, maxDelay.toMillis()));
    }

    /** A random wait in {@code [0, backoffCeiling(retry)]}. */
    public Duration delayBeforeRetry(int retry, RandomGenerator random) {
        long ceiling = backoffCeiling(retry).toMillis();
        return Duration.ofMillis(ceiling == 0 ? 0 : random.nextLong(ceiling + 1));
    }
}
