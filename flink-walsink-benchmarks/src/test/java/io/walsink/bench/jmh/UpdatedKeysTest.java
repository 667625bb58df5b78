package io.walsink.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The SSTable-flush benchmark's key sequence: its updated share decides how many keys are distinct. */
class UpdatedKeysTest {
    @Test
    void theUpdatedShareDecidesHowManyKeysAreDistinct() {
        assertThat(distinct(UpdatedKeys.sequence(100_000, 0.1, 1))).isBetween(89_000L, 91_000L);
        assertThat(distinct(UpdatedKeys.sequence(100_000, 0.9, 1))).isBetween(9_000L, 11_000L);
    }

    private static long distinct(long[] ids) {
        return Arrays.stream(ids).distinct().count();
    }
}
