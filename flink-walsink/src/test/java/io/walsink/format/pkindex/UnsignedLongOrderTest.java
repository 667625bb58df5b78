package io.walsink.format.pkindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The radix order against a stable comparison sort of the same keys, for key sets that skip passes or not. */
class UnsignedLongOrderTest {

    @Test
    void ordersAsAStableUnsignedSortWould() {
        long seed = GenerationPkIndexTest.seed("ordersAsAStableUnsignedSortWould");
        Random random = new Random(seed);
        LongSupplier[] shapes = {
            random::nextLong, // every digit differs: no pass skipped, negatives sort last
            () -> random.nextInt(1_000_000), // a dense range: the high passes are skipped
            () -> 0x7FFF_0000_0000_0000L | random.nextInt(1 << 12), // digits shared above and below
            () -> random.nextInt(4) * 0x1000_0000_0000_0000L, // only the top digit differs
            () -> random.nextInt(50), // many equal keys: their offsets must keep row order
        };
        for (int shape = 0; shape < shapes.length; shape++) {
            for (int rows : new int[] {0, 1, 2, 3, 2048, 2049, 100_000}) {
                long[] keys = new long[rows + 5]; // longer than the rows, as the index's growing array is
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = shapes[shape].getAsLong();
                }
                assertThat(UnsignedLongOrder.of(keys, rows))
                        .as("shape %d, %d rows, seed %d", shape, rows, seed)
                        .containsExactly(stableUnsignedOrder(keys, rows));
            }
        }
    }

    @Test
    void keysThatAreAllEqualKeepTheirRowOrder() {
        long[] keys = new long[5000];
        Arrays.fill(keys, -1L);
        assertThat(UnsignedLongOrder.of(keys, keys.length))
                .containsExactly(IntStream.range(0, keys.length).toArray());
    }

    private static int[] stableUnsignedOrder(long[] keys, int rows) {
        return IntStream.range(0, rows)
                .boxed()
                .sorted(Comparator.comparing((Integer row) -> keys[row], Long::compareUnsigned))
                .mapToInt(Integer::intValue)
                .toArray();
    }
}
