package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ManifestFileNameTest {
    @Test
    void namesFollowTheFormatTable() {
        assertThat(ManifestFileName.of(1)).isEqualTo("1" + "0".repeat(63) + ".binpb");
        assertThat(ManifestFileName.of(2)).isEqualTo("01" + "0".repeat(62) + ".binpb");
        assertThat(ManifestFileName.of(3)).isEqualTo("11" + "0".repeat(62) + ".binpb");
        assertThat(ManifestFileName.of(5)).isEqualTo("101" + "0".repeat(61) + ".binpb");
        assertThat(ManifestFileName.of(Long.MAX_VALUE)).isEqualTo("1".repeat(63) + "0" + ".binpb");
    }

    @Test
    void parseInvertsNames() {
        for (long v : new long[] {1, 2, 3, 5, 1000, 1L << 40, Long.MAX_VALUE}) {
            assertThat(ManifestFileName.parse(ManifestFileName.of(v))).hasValue(v);
        }
    }

    @Test
    void anythingElseIsNotAManifest() {
        assertThat(ManifestFileName.parse("version_hint.json")).isEmpty();
        assertThat(ManifestFileName.parse("0".repeat(64) + ".binpb")).isEmpty();
        assertThat(ManifestFileName.parse("1".repeat(63) + ".binpb")).isEmpty();
        assertThat(ManifestFileName.parse("1" + "0".repeat(63) + ".binpb.tmp")).isEmpty();
        assertThat(ManifestFileName.parse("2" + "0".repeat(63) + ".binpb")).isEmpty();
        assertThat(ManifestFileName.parse("." + "1" + "0".repeat(62) + ".binpb")).isEmpty();
        assertThatThrownBy(() -> ManifestFileName.of(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
