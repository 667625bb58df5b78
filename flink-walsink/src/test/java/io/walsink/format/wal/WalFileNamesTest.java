package io.walsink.format.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WalFileNamesTest {
    @Test
    void namesMatchTheFormatTable() {
        assertThat(WalFileNames.name(1)).isEqualTo("1" + "0".repeat(63) + ".arrow");
        assertThat(WalFileNames.name(2)).isEqualTo("01" + "0".repeat(62) + ".arrow");
        assertThat(WalFileNames.name(3)).isEqualTo("11" + "0".repeat(62) + ".arrow");
        assertThat(WalFileNames.name(5)).isEqualTo("101" + "0".repeat(61) + ".arrow");
        assertThat(WalFileNames.name(Long.MAX_VALUE)).isEqualTo("1".repeat(63) + "0.arrow");
    }

    @Test
    void parseInvertsName() {
        for (long p : new long[] {1, 2, 3, 5, 1000, 1L << 40, Long.MAX_VALUE}) {
            assertThat(WalFileNames.parse(WalFileNames.name(p))).hasValue(p);
        }
    }

    @Test
    void anythingElseIsNotAnEntry() {
        String one = WalFileNames.name(1);
        assertThat(WalFileNames.parse(one + ".tmp")).isEmpty();
        assertThat(WalFileNames.parse(".tmp_" + one)).isEmpty();
        assertThat(WalFileNames.parse(one.substring(1))).isEmpty();
        assertThat(WalFileNames.parse("2" + one.substring(1))).isEmpty();
        assertThat(WalFileNames.parse("0".repeat(64) + ".arrow")).isEmpty();
        assertThat(WalFileNames.parse(one.replace(".arrow", ".binpb"))).isEmpty();
        assertThatThrownBy(() -> WalFileNames.name(0)).hasMessageContaining("got 0");
    }
}
