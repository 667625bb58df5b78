package io.walsink.format.key;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Byte-exact column encodings of format.md section 6. */
class KeyBufferTest {

    private static String hex(KeyBuffer key) {
        return HexFormat.ofDelimiter(" ").formatHex(key.toByteArray());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void signedIntegersFlipTheSignBitBigEndian() {
        assertThat(hex(new KeyBuffer().appendSigned(1))).isEqualTo("01 80 00 00 00 00 00 00 01");
        assertThat(hex(new KeyBuffer().appendSigned(-1))).isEqualTo("01 7f ff ff ff ff ff ff ff");
        assertThat(hex(new KeyBuffer().appendSigned(Long.MIN_VALUE))).isEqualTo("01 00 00 00 00 00 00 00 00");
        assertThat(hex(new KeyBuffer().appendSigned(0x0102030405060708L))).isEqualTo("01 81 02 03 04 05 06 07 08");
    }

    @Test
    void unsignedIntegersAreBigEndian() {
        assertThat(hex(new KeyBuffer().appendUnsigned(0xffffffffL))).isEqualTo("01 00 00 00 00 ff ff ff ff");
        assertThat(hex(new KeyBuffer().appendUnsigned(-1L))).isEqualTo("01 ff ff ff ff ff ff ff ff");
    }

    @Test
    void nullsBooleansAndComposites() {
        assertThat(hex(new KeyBuffer().appendNull())).isEqualTo("00");
        assertThat(hex(new KeyBuffer().appendBoolean(true))).isEqualTo("01 01");
        assertThat(hex(new KeyBuffer().appendBoolean(false))).isEqualTo("01 00");
        assertThat(hex(new KeyBuffer().appendNull().appendBoolean(true).appendBytes(utf8("a"))))
                .isEqualTo("00 01 01 01 61 00 00");
    }

    @Test
    void bytesEscapeZeroAndTerminate() {
        assertThat(hex(new KeyBuffer().appendBytes(new byte[0]))).isEqualTo("01 00 00");
        assertThat(hex(new KeyBuffer().appendBytes(utf8("a\u0000b")))).isEqualTo("01 61 00 ff 62 00 00");
        assertThat(hex(new KeyBuffer().appendBytes(new byte[] {0, 0, (byte) 0xff})))
                .isEqualTo("01 00 ff 00 ff ff 00 00");
        assertThat(hex(new KeyBuffer().appendBytes(new byte[] {9, 0x61, 0x62, 9}, 1, 2)))
                .isEqualTo("01 61 62 00 00");
    }

    @Test
    void compositeKeysAreNotConfusedAcrossColumnBoundaries() {
        KeyBuffer aThenB = new KeyBuffer().appendBytes(utf8("a")).appendBytes(utf8("b"));
        KeyBuffer abThenEmpty = new KeyBuffer().appendBytes(utf8("ab")).appendBytes(new byte[0]);
        KeyBuffer abThenNull = new KeyBuffer().appendBytes(utf8("ab")).appendNull();
        assertThat(aThenB).isNotEqualTo(abThenEmpty).isNotEqualTo(abThenNull);
        // ("a", "b") < ("ab", x) because "a" < "ab", whatever follows.
        assertThat(aThenB.compareTo(abThenEmpty)).isNegative();
        assertThat(aThenB.compareTo(abThenNull)).isNegative();
        assertThat(startsWith(abThenEmpty, aThenB)).isFalse();
        assertThat(startsWith(aThenB, abThenEmpty)).isFalse();
        // A string ending in 0x00 sorts after its prefix and is no extension of it.
        KeyBuffer a = new KeyBuffer().appendBytes(utf8("a"));
        KeyBuffer aZero = new KeyBuffer().appendBytes(utf8("a\u0000"));
        assertThat(a.compareTo(aZero)).isNegative();
        assertThat(startsWith(aZero, a)).isFalse();
    }

    @Test
    void reuseAfterClearAndGrowth() {
        KeyBuffer key = new KeyBuffer(1);
        byte[] big = new byte[1000]; // all zeros: worst-case escaping
        key.appendBytes(big);
        assertThat(key.length()).isEqualTo(1 + 2000 + 2);
        key.clear().appendSigned(1);
        assertThat(hex(key)).isEqualTo("01 80 00 00 00 00 00 00 01");
        assertThat(key).isEqualTo(new KeyBuffer().appendSigned(1));
        assertThat(key.hashCode()).isEqualTo(new KeyBuffer().appendSigned(1).hashCode());
    }

    static boolean startsWith(KeyBuffer whole, KeyBuffer prefix) {
        if (prefix.length() > whole.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (whole.array()[i] != prefix.array()[i]) {
                return false;
            }
        }
        return true;
    }
}
