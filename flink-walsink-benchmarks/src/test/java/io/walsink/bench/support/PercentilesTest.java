package io.walsink.bench.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Nearest rank on known input. */
class PercentilesTest {
    @Test
    void nearestRankOnKnownInput() {
        long[] hundred = LongStream.rangeClosed(1, 100).toArray();
        assertThat(Percentiles.of(hundred, 50)).isEqualTo(50);
        assertThat(Percentiles.of(hundred, 90)).isEqualTo(90);
        assertThat(Percentiles.of(hundred, 99)).isEqualTo(99);
        assertThat(Percentiles.of(hundred, 100)).isEqualTo(100);
        assertThat(Percentiles.of(hundred, 0.5)).isEqualTo(1);

        long[] thousand = LongStream.rangeClosed(1, 1_000).toArray();
        assertThat(Percentiles.of(thousand, 99)).isEqualTo(990);
        assertThat(Percentiles.of(thousand, 99.9)).isEqualTo(999);

        long[] ten = LongStream.rangeClosed(1, 10).toArray();
        assertThat(Percentiles.of(ten, 99)).isEqualTo(10); // rank ceil(9.9) = 10
        assertThat(Percentiles.of(ten, 50)).isEqualTo(5);
        assertThat(Percentiles.of(new long[] {7}, 1)).isEqualTo(7);
        assertThat(Percentiles.of(new long[0], 99)).isEqualTo(-1);
        assertThatThrownBy(() -> Percentiles.of(ten, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.of(ten, 101)).isInstanceOf(IllegalArgumentException.class);
    }
}
