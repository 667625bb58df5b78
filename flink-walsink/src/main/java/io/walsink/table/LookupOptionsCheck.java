package io.walsink.table;

import static io.walsink.table.WalSinkTableConfig.invalid;
import static io.walsink.table.WalSinkTableConfig.positive;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_CACHE;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_FULL_CACHE_PERIODIC_RELOAD_INTERVAL;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_FULL_CACHE_RELOAD_STRATEGY;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_MAX_RETRIES;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_PARTIAL_CACHE_CACHE_MISSING_KEY;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_ACCESS;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_WRITE;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_PARTIAL_CACHE_MAX_ROWS;
import static io.walsink.table.WalSinkTableOptions.LOOKUP_REFRESH_INTERVAL;

import io.walsink.table.lookup.FullCacheReload;
import io.walsink.table.lookup.LookupConfig;
import java.time.Duration;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.Temporal;
import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.Locale;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger.ScheduleMode;

/** The {@code lookup.*} options of a walsink table, parsed and checked into a {@link LookupConfig}. */
final class LookupOptionsCheck {
    private LookupOptionsCheck() {}

    static LookupConfig lookup(ReadableConfig options) {
        String cache = options.get(LOOKUP_CACHE).toUpperCase(Locale.ROOT);
        if (!List.of("NONE", "PARTIAL", "FULL").contains(cache)) {
            throw invalid(LOOKUP_CACHE, "must be NONE, PARTIAL or FULL, was '" + options.get(LOOKUP_CACHE) + "'");
        }
        boolean partial = cache.equals("PARTIAL");
        FullCacheReload full = cache.equals("FULL") ? fullCacheReload(options) : null;
        Duration access = options.get(LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_ACCESS);
        Duration write = options.get(LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_WRITE);
        Long maxRows = options.get(LOOKUP_PARTIAL_CACHE_MAX_ROWS);
        if (partial && access == null && write == null && maxRows == null) {
            // Flink's cache would grow without bound and hold rows forever.
            throw invalid(
                    LOOKUP_CACHE,
                    "PARTIAL needs '" + LOOKUP_PARTIAL_CACHE_MAX_ROWS.key() + "', '"
                            + LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_WRITE.key() + "' or '"
                            + LOOKUP_PARTIAL_CACHE_EXPIRE_AFTER_ACCESS.key() + "'");
        }
        if (maxRows != null) {
            positive(LOOKUP_PARTIAL_CACHE_MAX_ROWS, maxRows);
        }
        int retries = options.get(LOOKUP_MAX_RETRIES);
        if (retries < 0) {
            throw invalid(LOOKUP_MAX_RETRIES, "must not be negative, was " + retries);
        }
        Duration refresh = options.get(LOOKUP_REFRESH_INTERVAL);
        if (refresh.isNegative()) {
            throw invalid(LOOKUP_REFRESH_INTERVAL, "must not be negative, was " + refresh);
        }
        return new LookupConfig(
                partial,
                access,
                write,
                maxRows,
                options.get(LOOKUP_PARTIAL_CACHE_CACHE_MISSING_KEY),
                retries,
                refresh,
                full);
    }

    private static FullCacheReload fullCacheReload(ReadableConfig options) {
        String strategy = options.get(LOOKUP_FULL_CACHE_RELOAD_STRATEGY).toUpperCase(Locale.ROOT);
        if (strategy.equals("PERIODIC")) {
            Duration interval = options.get(LOOKUP_FULL_CACHE_PERIODIC_RELOAD_INTERVAL);
            if (interval == null || interval.isZero() || interval.isNegative()) {
                throw invalid(
                        LOOKUP_FULL_CACHE_PERIODIC_RELOAD_INTERVAL,
                        "a FULL cache reloaded PERIODIC needs a positive interval, was " + interval);
            }
            String mode = options.get(LOOKUP_FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE);
            return switch (mode.toUpperCase(Locale.ROOT)) {
                case "FIXED_DELAY" -> FullCacheReload.periodic(interval, ScheduleMode.FIXED_DELAY);
                case "FIXED_RATE" -> FullCacheReload.periodic(interval, ScheduleMode.FIXED_RATE);
                default -> throw invalid(
                        LOOKUP_FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE,
                        "must be FIXED_DELAY or FIXED_RATE, was '" + mode + "'");
            };
        }
        if (!strategy.equals("TIMED")) {
            throw invalid(
                    LOOKUP_FULL_CACHE_RELOAD_STRATEGY,
                    "must be PERIODIC or TIMED, was '" + options.get(LOOKUP_FULL_CACHE_RELOAD_STRATEGY) + "'");
        }
        String time = options.get(LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME);
        if (time == null) {
            throw invalid(LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME, "a FULL cache reloaded TIMED needs a time of day");
        }
        TemporalAccessor parsed;
        try {
            parsed = DateTimeFormatter.ISO_TIME.parseBest(time, OffsetTime::from, LocalTime::from);
        } catch (DateTimeParseException e) {
            throw invalid(
                    LOOKUP_FULL_CACHE_TIMED_RELOAD_ISO_TIME,
                    "must be an ISO-8601 time such as 10:15 or 10:15:30+01:00, was '" + time + "'");
        }
        int days = options.get(LOOKUP_FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS);
        positive(LOOKUP_FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS, days);
        return FullCacheReload.timed((Temporal) parsed, days);
    }
}
