package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.data.TimestampData;
import org.junit.jupiter.api.Test;

class TemporalUnitTest {

    @Test
    void precisionsPickTheCoarsestUnitKeepingTheirDigits() {
        assertThat(TemporalUnit.forPrecision(0)).isEqualTo(TemporalUnit.SECOND);
        assertThat(TemporalUnit.forPrecision(1)).isEqualTo(TemporalUnit.MILLISECOND);
        assertThat(TemporalUnit.forPrecision(3)).isEqualTo(TemporalUnit.MILLISECOND);
        assertThat(TemporalUnit.forPrecision(4)).isEqualTo(TemporalUnit.MICROSECOND);
        assertThat(TemporalUnit.forPrecision(6)).isEqualTo(TemporalUnit.MICROSECOND);
        assertThat(TemporalUnit.forPrecision(7)).isEqualTo(TemporalUnit.NANOSECOND);
        assertThat(TemporalUnit.forPrecision(9)).isEqualTo(TemporalUnit.NANOSECOND);
    }

    @Test
    void finerDigitsAreFlooredTowardThePast() {
        TimestampData justBeforeEpoch = TimestampData.fromEpochMillis(-1, 999_999);

        assertThat(TemporalUnit.SECOND.fromTimestamp(justBeforeEpoch)).isEqualTo(-1);
        assertThat(TemporalUnit.MILLISECOND.fromTimestamp(justBeforeEpoch)).isEqualTo(-1);
        assertThat(TemporalUnit.MICROSECOND.fromTimestamp(justBeforeEpoch)).isEqualTo(-1);
        assertThat(TemporalUnit.NANOSECOND.fromTimestamp(justBeforeEpoch)).isEqualTo(-1);
        assertThat(TemporalUnit.MICROSECOND.toTimestamp(-1)).isEqualTo(TimestampData.fromEpochMillis(-1, 999_000));
    }

    @Test
    void the64BitNanosecondRangeIsExactAtBothEndsAndRefusedBeyond() {
        assertThat(TemporalUnit.NANOSECOND.fromTimestamp(TemporalUnit.NANOSECOND.toTimestamp(Long.MIN_VALUE)))
                .isEqualTo(Long.MIN_VALUE);
        assertThat(TemporalUnit.NANOSECOND.fromTimestamp(TemporalUnit.NANOSECOND.toTimestamp(Long.MAX_VALUE)))
                .isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() ->
                        TemporalUnit.NANOSECOND.fromTimestamp(TimestampData.fromEpochMillis(-9_223_372_036_855L, 0)))
                .isInstanceOf(ArithmeticException.class);
    }

    @Test
    void timeOfDayConvertsBetweenMillisAndEachUnit() {
        int millis = 86_399_999;

        assertThat(TemporalUnit.SECOND.fromMillisOfDay(millis)).isEqualTo(86_399);
        assertThat(TemporalUnit.MICROSECOND.fromMillisOfDay(millis)).isEqualTo(86_399_999_000L);
        assertThat(TemporalUnit.NANOSECOND.toMillisOfDay(86_399_999_999_999L)).isEqualTo(millis);
        assertThat(TemporalUnit.SECOND.toMillisOfDay(86_399)).isEqualTo(86_399_000);
    }
}
