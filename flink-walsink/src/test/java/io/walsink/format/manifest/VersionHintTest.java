package io.walsink.format.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VersionHintTest {
    @Test
    void encodesExactlyWithoutSpaces() {
        assertThat(new String(VersionHint.encode(12), StandardCharsets.UTF_8)).isEqualTo("{\"version\":12}");
    }

    @Test
    void parsesWhatLanceWritesAndToleratesWhitespace() {
        assertThat(VersionHint.parse(bytes("{\"version\":3}"))).hasValue(3);
        assertThat(VersionHint.parse(bytes(" { \"version\" : 3 }\n"))).hasValue(3);
    }

    @Test
    void rejectsUnusableHints() {
        assertThat(VersionHint.parse(bytes(""))).isEmpty();
        assertThat(VersionHint.parse(bytes("{\"version\":0}"))).isEmpty();
        assertThat(VersionHint.parse(bytes("{\"version\":-2}"))).isEmpty();
        assertThat(VersionHint.parse(bytes("{\"version\":99999999999999999999}")))
                .isEmpty();
        assertThat(VersionHint.parse(bytes("{\"version\":\"3\"}"))).isEmpty();
        assertThat(VersionHint.parse(bytes("{\"version\":3"))).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
