package io.walsink.maintenance.compaction;

import io.walsink.maintenance.CompactorOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * What is left of one compaction run: generations over all shards
 * ({@link CompactorOptions#maxGenerationsPerRun()}), time since the run began
 * ({@link CompactorOptions#maxRunTime()}, on an injectable clock) and a stop request. Looked at
 * between commits only, so the generations of a commit once started are merged to the end.
 */
final class RunBudget {
    private final int maxGenerations;
    private final Optional<Duration> maxTime;
    private final LongSupplier nanoClock;
    private final BooleanSupplier stopRequested;
    private final long startedNanos;
    private int started;

    RunBudget(CompactorOptions options, LongSupplier nanoClock, BooleanSupplier stopRequested) {
        this.maxGenerations = options.maxGenerationsPerRun();
        this.maxTime = options.maxRunTime();
        this.nanoClock = nanoClock;
        this.stopRequested = stopRequested;
        this.startedNanos = nanoClock.getAsLong();
    }

    /** Why no further generation may start, if none may. The first generation is always allowed time. */
    Optional<String> exhausted() {
        if (stopRequested.getAsBoolean()) {
            return Optional.of("a stop was requested");
        }
        if (started >= maxGenerations) {
            return Optional.of("the limit of " + maxGenerations + " generations per run");
        }
        if (started > 0
                && maxTime.isPresent()
                && nanoClock.getAsLong() - startedNanos >= maxTime.get().toNanos()) {
            return Optional.of("the run's time budget of " + maxTime.get());
        }
        return Optional.empty();
    }

    /** Generations that may still start: a commit of several shards' generations takes at most this many. */
    int generationsLeft() {
        return Math.max(0, maxGenerations - started);
    }

    /** A generation is about to be merged (or found merged already). */
    void generationStarted() {
        started++;
    }
}
