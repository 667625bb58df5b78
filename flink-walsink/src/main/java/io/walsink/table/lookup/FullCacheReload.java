package io.walsink.table.lookup;

import io.walsink.annotation.Internal;
import java.io.Serializable;
import java.time.Duration;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.temporal.Temporal;
import java.util.Objects;
import org.apache.flink.table.connector.source.lookup.LookupOptions.ReloadStrategy;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger.ScheduleMode;
import org.apache.flink.table.connector.source.lookup.cache.trigger.TimedCacheReloadTrigger;

/**
 * When a FULL lookup cache loads the table again ({@code lookup.full-cache.*}, checked when the
 * table is declared): Flink's own reload triggers, built per join from these settings.
 *
 * @param interval PERIODIC: time between loads; null for TIMED
 * @param scheduleMode PERIODIC: from the end or the start of a load
 * @param time TIMED: a {@link LocalTime} or an {@link OffsetTime}; null for PERIODIC
 * @param intervalInDays TIMED: days between loads
 */
@Internal
public record FullCacheReload(
        ReloadStrategy strategy, Duration interval, ScheduleMode scheduleMode, Temporal time, int intervalInDays)
        implements Serializable {

    public FullCacheReload {
        Objects.requireNonNull(strategy, "strategy");
        if (strategy == ReloadStrategy.PERIODIC) {
            Objects.requireNonNull(scheduleMode, "scheduleMode");
            if (interval == null || interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("a periodic reload needs a positive interval, was " + interval);
            }
        } else if (!(time instanceof LocalTime) && !(time instanceof OffsetTime)) {
            throw new IllegalArgumentException("a timed reload needs a time of day, was " + time);
        }
        if (strategy == ReloadStrategy.TIMED && intervalInDays < 1) {
            throw new IllegalArgumentException("a timed reload needs at least one day between loads");
        }
    }

    public static FullCacheReload periodic(Duration interval, ScheduleMode mode) {
        return new FullCacheReload(ReloadStrategy.PERIODIC, interval, mode, null, 1);
    }

    public static FullCacheReload timed(Temporal time, int intervalInDays) {
        return new FullCacheReload(ReloadStrategy.TIMED, null, null, time, intervalInDays);
    }

    /** A new trigger: each join gets its own, as each holds its own scheduler once opened. */
    public CacheReloadTrigger trigger() {
        if (strategy == ReloadStrategy.PERIODIC) {
            return new PeriodicCacheReloadTrigger(interval, scheduleMode);
        }
        return time instanceof OffsetTime offset
                ? new TimedCacheReloadTrigger(offset, intervalInDays)
                : new TimedCacheReloadTrigger((LocalTime) time, intervalInDays);
    }

    String describe() {
        return strategy == ReloadStrategy.PERIODIC
                ? "reloaded every " + interval + " (" + scheduleMode + ")"
                : "reloaded at " + time + " every " + intervalInDays + " days";
    }
}
