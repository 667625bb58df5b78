package io.walsink.format.pkindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The byte-key order against a stable comparison sort of the same keys: keys sharing long prefixes
 * (the radix recurses), keys that are zero-extended prefixes of others (lengths decide), random
 * binary keys and many equal keys.
 */
class KeyBytesOrderTest {

    @Test
    void ordersAsAStableUnsignedByteSortWould() {
        long seed = GenerationPkIndexTest.seed("ordersAsAStableUnsignedByteSortWould");
        Random random = new Random(seed);
        @SuppressWarnings("unchecked")
        Supplier<byte[]>[] shapes = new Supplier[] {
            () -> ("user_" + random.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8),
            () -> String.format("tenant-%02d/order-%012d", random.nextInt(3), random.nextInt(1 << 20))
                    .getBytes(StandardCharsets.UTF_8), // 24+ shared bytes within a tenant
            () -> randomBytes(random, random.nextInt(20)), // binary, negative bytes, empty keys
            () -> zeroExtended(random), // "ab", "ab\0", "ab\0\0..." and longer keys behind them
            () -> new byte[] {(byte) random.nextInt(3)}, // many equal keys: their rows keep their order
        };
        for (int shape = 0; shape < shapes.length; shape++) {
            for (int rows : new int[] {0, 1, 2, 255, 256, 257, 50_000}) {
                ByteArrayOutputStream arena = new ByteArrayOutputStream();
                int[] ends = new int[rows + 3]; // longer than the rows, as the index's growing array is
                byte[][] keys = new byte[rows][];
                for (int r = 0; r < rows; r++) {
                    keys[r] = shapes[shape].get();
                    arena.writeBytes(keys[r]);
                    ends[r] = arena.size();
                }
                assertThat(KeyBytesOrder.of(arena.toByteArray(), ends, rows))
                        .as("shape %d, %d rows, seed %d", shape, rows, seed)
                        .containsExactly(IntStream.range(0, rows)
                                .boxed()
                                .sorted(Comparator.comparing((Integer r) -> keys[r], Arrays::compareUnsigned))
                                .mapToInt(Integer::intValue)
                                .toArray());
            }
        }
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** A short stem, zero bytes, then sometimes one more byte: prefixes of each other once zero-padded. */
    private static byte[] zeroExtended(Random random) {
        byte[] key = new byte[1 + random.nextInt(18)];
        key[0] = (byte) ('a' + random.nextInt(2));
        if (random.nextBoolean()) {
            key[key.length - 1] = (byte) (1 + random.nextInt(255));
        }
        return key;
    }
}
