package io.walsink.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BitReversedNameTest {

    private static String zeros(int n) {
        return "0".repeat(n);
    }

    @Test
    void namesFromTheFormatTable() {
        assertThat(BitReversedName.walEntryName(1)).isEqualTo("1" + zeros(63) + ".arrow");
        assertThat(BitReversedName.walEntryName(2)).isEqualTo("01" + zeros(62) + ".arrow");
        assertThat(BitReversedName.walEntryName(3)).isEqualTo("11" + zeros(62) + ".arrow");
        assertThat(BitReversedName.walEntryName(5)).isEqualTo("101" + zeros(61) + ".arrow");
        assertThat(BitReversedName.manifestName(1)).isEqualTo("1" + zeros(63) + ".binpb");
        assertThat(BitReversedName.manifestName(5)).isEqualTo("101" + zeros(61) + ".binpb");
    }

    @Test
    void largestValuesUseTheHighBitsAsUnsigned() {
        assertThat(BitReversedName.walEntryName(Long.MAX_VALUE)).isEqualTo("1".repeat(63) + "0.arrow");
        // u64 values of 2^63 and above arrive as negative longs.
        assertThat(BitReversedName.walEntryName(Long.MIN_VALUE)).isEqualTo(zeros(63) + "1.arrow");
        assertThat(BitReversedName.walEntryName(-1L)).isEqualTo("1".repeat(64) + ".arrow");
    }

    @Test
    void roundTripsExtremeAndRandomValues() {
        long[] extremes = {1, 2, 3, 5, Long.MAX_VALUE, Long.MIN_VALUE, -1, Integer.MAX_VALUE, 1L << 32};
        for (long v : extremes) {
            assertRoundTrip(v);
        }
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            long v = random.nextLong();
            if (v != 0) {
                assertRoundTrip(v);
            }
            assertRoundTrip(1 + random.nextLong(1_000_000));
        }
    }

    private static void assertRoundTrip(long v) {
        String wal = BitReversedName.walEntryName(v);
        String manifest = BitReversedName.manifestName(v);
        assertThat(wal).hasSize(64 + 6);
        assertThat(BitReversedName.parseWalEntryPosition(wal)).hasValue(v);
        assertThat(BitReversedName.parseManifestVersion(manifest)).hasValue(v);
        assertThat(BitReversedName.isWalEntryName(wal)).isTrue();
        assertThat(BitReversedName.isManifestName(wal)).isFalse();
        assertThat(BitReversedName.isWalEntryName(manifest)).isFalse();
    }

    @Test
    void zeroHasNoName() {
        assertThatThrownBy(() -> BitReversedName.walEntryName(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none");
        assertThatThrownBy(() -> BitReversedName.manifestName(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(BitReversedName.parseWalEntryPosition(zeros(64) + ".arrow")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ".arrow",
                "1.arrow",
                "100000000000000000000000000000000000000000000000000000000000000.arrow", // 63
                "10000000000000000000000000000000000000000000000000000000000000000.arrow", // 65
                "1000000000000000000000000000000000000000000000000000000000000002.arrow",
                "100000000000000000000000000000000000000000000000000000000000000 .arrow",
                " 100000000000000000000000000000000000000000000000000000000000000.arrow",
                "100000000000000000000000000000000000000000000000000000000000000x.arrow",
                "1000000000000000000000000000000000000000000000000000000000000000.binpb",
                "1000000000000000000000000000000000000000000000000000000000000000.arrow.tmp",
                "1000000000000000000000000000000000000000000000000000000000000000.ARROW",
                "1000000000000000000000000000000000000000000000000000000000000000arrow",
                "1000000000000000000000000000000000000000000000000000000000000000",
                ".1000000000000000000000000000000000000000000000000000000000000000.arrow",
                "tmp-1000000000000000000000000000000000000000000000000000000000000000.arrow",
                "wal/1000000000000000000000000000000000000000000000000000000000000000.arrow",
                "１000000000000000000000000000000000000000000000000000000000000000.arrow",
            })
    void rejectsAnythingButTheExactPattern(String name) {
        assertThat(BitReversedName.parseWalEntryPosition(name)).isEqualTo(OptionalLong.empty());
        assertThat(BitReversedName.isWalEntryName(name)).isFalse();
    }

    @Test
    void rejectsNullAndForeignExtensionsForManifests() {
        assertThat(BitReversedName.parseManifestVersion(null)).isEmpty();
        assertThat(BitReversedName.isManifestName("1" + zeros(63) + ".arrow")).isFalse();
        assertThat(BitReversedName.isManifestName("1" + zeros(63) + ".binpb")).isTrue();
        assertThat(BitReversedName.isManifestName("version_hint.json")).isFalse();
    }
}
