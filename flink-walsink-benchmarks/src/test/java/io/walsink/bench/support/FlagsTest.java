package io.walsink.bench.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runners' {@code --name value} options: lists of positive integers. */
class FlagsTest {
    private static final Map<String, String> DEFAULTS = Map.of("--checkpoint-ms", "1000,5000");

    @Test
    void aListKeepsItsOrderAndRepeats() {
        assertThat(Flags.parse(new String[0], DEFAULTS, "usage").positives("--checkpoint-ms"))
                .containsExactly(1_000L, 5_000L);
        assertThat(Flags.parse(new String[] {"--checkpoint-ms", "1_000, 500,1000"}, DEFAULTS, "usage")
                        .positives("--checkpoint-ms"))
                .containsExactly(1_000L, 500L, 1_000L);
    }

    @Test
    void asArgumentsTheFlagsParseToTheSameValues() {
        Map<String, String> defaults = new java.util.LinkedHashMap<>(DEFAULTS);
        defaults.put("--verify", "false");
        defaults.put("--quiet", "false");
        Flags flags = Flags.parse(new String[] {"--verify", "--checkpoint-ms", "200"}, defaults, "usage");

        assertThat(flags.asArgs()).containsExactly("--checkpoint-ms", "200", "--verify");
        Flags again = Flags.parse(flags.asArgs().toArray(String[]::new), defaults, "usage");
        assertThat(again.on("--verify")).isTrue();
        assertThat(again.on("--quiet")).isFalse();
        assertThat(again.get("--checkpoint-ms")).isEqualTo("200");
    }

    @Test
    void aListWithAZeroOrAWordIsRefused() {
        for (String bad : new String[] {"1000,0", "1000,,5000", "fast"}) {
            Flags flags = Flags.parse(new String[] {"--checkpoint-ms", bad}, DEFAULTS, "usage");
            assertThatThrownBy(() -> flags.positives("--checkpoint-ms"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--checkpoint-ms needs positive integers");
        }
    }
}
