package io.walsink.flink.convert;

import io.walsink.annotation.Internal;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.flink.table.data.TimestampData;

/**
 * Arrow's four time units seen as Flink precisions (0, 3, 6, 9 fractional digits), with the exact
 * integer arithmetic between them and Flink's internal forms: {@link TimestampData} (epoch millis
 * plus nanos of the milli) and TIME as an int of millis of the day.
 *
 * <p>Digits finer than the unit are floored (toward the past), like Flink's own precision
 * truncation; a value outside the unit's 64-bit range (nanoseconds beyond 1677..2262) throws
 * {@link ArithmeticException} instead of wrapping around.
 */
@Internal
public enum TemporalUnit {
    SECOND(0, TimeUnit.SECOND, 1_000_000_000L),
    MILLISECOND(3, TimeUnit.MILLISECOND, 1_000_000L),
    MICROSECOND(6, TimeUnit.MICROSECOND, 1_000L),
    NANOSECOND(9, TimeUnit.NANOSECOND, 1L);

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final int precision;
    private final TimeUnit arrow;
    private final long nanosPerTick;

    TemporalUnit(int precision, TimeUnit arrow, long nanosPerTick) {
        this.precision = precision;
        this.arrow = arrow;
        this.nanosPerTick = nanosPerTick;
    }

    /** The coarsest unit that keeps all {@code precision} fractional digits. */
    public static TemporalUnit forPrecision(int precision) {
        if (precision == 0) {
            return SECOND;
        }
        if (precision <= 3) {
            return MILLISECOND;
        }
        return precision <= 6 ? MICROSECOND : NANOSECOND;
    }

    public static TemporalUnit of(TimeUnit arrow) {
        for (TemporalUnit u : values()) {
            if (u.arrow == arrow) {
                return u;
            }
        }
        throw new IllegalArgumentException("unknown Arrow time unit " + arrow);
    }

    public int precision() {
        return precision;
    }

    public TimeUnit arrow() {
        return arrow;
    }

    public long fromTimestamp(TimestampData t) {
        long millis = t.getMillisecond();
        long nanosOfMilli = t.getNanoOfMillisecond();
        if (nanosPerTick >= NANOS_PER_MILLI) { // second or millisecond: floor the millis
            long millisPerTick = nanosPerTick / NANOS_PER_MILLI;
            return Math.floorDiv(millis, millisPerTick);
        }
        long ticksPerMilli = NANOS_PER_MILLI / nanosPerTick;
        long subMilliTicks = nanosOfMilli / nanosPerTick;
        if (millis < 0 && subMilliTicks > 0) {
            // Borrow one milli so the product cannot overflow on the way to the earliest instant
            // a 64-bit count reaches (1677-09-21T00:12:43.145224192 in nanoseconds).
            return Math.addExact(Math.multiplyExact(millis + 1, ticksPerMilli), subMilliTicks - ticksPerMilli);
        }
        return Math.addExact(Math.multiplyExact(millis, ticksPerMilli), subMilliTicks);
    }

    public TimestampData toTimestamp(long ticks) {
        if (nanosPerTick >= NANOS_PER_MILLI) {
            return TimestampData.fromEpochMillis(Math.multiplyExact(ticks, nanosPerTick / NANOS_PER_MILLI));
        }
        long ticksPerMilli = NANOS_PER_MILLI / nanosPerTick;
        long millis = Math.floorDiv(ticks, ticksPerMilli);
        int nanosOfMilli = (int) (Math.floorMod(ticks, ticksPerMilli) * nanosPerTick);
        return TimestampData.fromEpochMillis(millis, nanosOfMilli);
    }

    /** Flink TIME values are non-negative millis of the day, so plain division floors. */
    public long fromMillisOfDay(int millisOfDay) {
        if (nanosPerTick >= NANOS_PER_MILLI) {
            return millisOfDay / (nanosPerTick / NANOS_PER_MILLI);
        }
        return millisOfDay * (NANOS_PER_MILLI / nanosPerTick);
    }

    /** Sub-millisecond digits are dropped: Flink's RowData holds TIME as millis. */
    public int toMillisOfDay(long ticks) {
        if (nanosPerTick >= NANOS_PER_MILLI) {
            return Math.toIntExact(ticks * (nanosPerTick / NANOS_PER_MILLI));
        }
        return Math.toIntExact(ticks / (NANOS_PER_MILLI / nanosPerTick));
    }
}
