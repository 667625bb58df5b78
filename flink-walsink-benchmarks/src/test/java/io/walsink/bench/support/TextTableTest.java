package io.walsink.bench.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The tables every report prints: aligned columns, and figures without false precision. */
class TextTableTest {
    @Test
    void alignsColumnsAndRightAlignsMarkedOnes() {
        String text = new TextTable("name", ">score")
                .row("a", "1")
                .row("longer", "1,234")
                .render();
        assertThat(text)
                .isEqualTo(
                        """
                name    score
                ------  -----
                a           1
                longer  1,234
                """);
    }

    @Test
    void figuresAvoidFalsePrecision() {
        assertThat(Figures.number(1_234_567.8)).isEqualTo("1,234,568");
        assertThat(Figures.number(47.34)).isEqualTo("47.3");
        assertThat(Figures.number(Double.NaN)).isEqualTo("-");
        assertThat(Figures.ratio(0.4567)).isEqualTo("0.46x");
    }
}
