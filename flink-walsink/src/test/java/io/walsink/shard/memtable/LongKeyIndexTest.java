package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.format.key.KeyBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

public class LongKeyIndexTest {
    private static final long[] EDGE_KEYS = {
        0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, Integer.MIN_VALUE
    };

    /** A new seed each run unless {@code -Dwalsink.test.seed=...} repeats one; printed either way. */
    public static long seed(String test) {
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + " (rerun with -Dwalsink.test.seed=" + seed + ")");
        return seed;
    }

    @Test
    void randomPutsAndGetsAgreeWithAHashMap() {
        long seed = seed("randomPutsAndGetsAgreeWithAHashMap");
        Random random = new Random(seed);
        LongKeyIndex index = new LongKeyIndex(16);
        Map<Long, Long> model = new HashMap<>();
        for (long row = 0; row < 300_000; row++) {
            long key = randomKey(random);
            if (random.nextInt(4) == 0) {
                Long expected = model.get(key);
                assertThat(index.get(key))
                        .as("get %d at step %d, seed %d", key, row, seed)
                        .isEqualTo(expected == null ? KeyIndex.ABSENT : expected);
                continue;
            }
            Long previous = model.put(key, row);
            assertThat(index.put(key, row))
                    .as("put %d at step %d, seed %d", key, row, seed)
                    .isEqualTo(previous == null ? KeyIndex.ABSENT : previous);
        }
        assertThat(index.size()).as("seed %d", seed).isEqualTo(model.size());
        model.forEach((key, row) ->
                assertThat(index.get(key)).as("key %d, seed %d", key, seed).isEqualTo(row));
    }

    /** Small ranges (many updates), the edges, and anything at all. */
    private static long randomKey(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return random.nextInt(2_000) - 1_000;
            case 1:
                return EDGE_KEYS[random.nextInt(EDGE_KEYS.length)];
            case 2:
                return random.nextLong();
            default:
                return random.nextInt(100_000) * 4096L; // equal low bits: the slot must mix them
        }
    }

    @Test
    void edgeKeysIncludingTheEmptySlotMarkerAreOrdinaryKeys() {
        LongKeyIndex index = new LongKeyIndex();
        for (int i = 0; i < EDGE_KEYS.length; i++) {
            assertThat(index.get(EDGE_KEYS[i])).isEqualTo(KeyIndex.ABSENT);
            assertThat(index.put(EDGE_KEYS[i], i)).isEqualTo(KeyIndex.ABSENT);
        }
        assertThat(index.size()).isEqualTo(EDGE_KEYS.length);
        for (int i = 0; i < EDGE_KEYS.length; i++) {
            assertThat(index.get(EDGE_KEYS[i])).isEqualTo(i);
            assertThat(index.put(EDGE_KEYS[i], 100 + i)).isEqualTo(i);
            assertThat(index.get(EDGE_KEYS[i])).isEqualTo(100 + i);
        }
        assertThat(index.size()).isEqualTo(EDGE_KEYS.length);
    }

    @Test
    void theByteCallsReadTheSignedEncodingOfTheSameKeys() {
        LongKeyIndex index = new LongKeyIndex();
        KeyBuffer key = new KeyBuffer();
        for (int i = 0; i < EDGE_KEYS.length; i++) {
            key.clear().appendSigned(EDGE_KEYS[i]);
            assertThat(index.put(key.array(), key.length(), i)).isEqualTo(KeyIndex.ABSENT);
            assertThat(index.get(EDGE_KEYS[i] ^ Long.MIN_VALUE)).isEqualTo(i);
            assertThat(index.get(key.array(), key.length())).isEqualTo(i);
        }
        assertThatThrownBy(() -> index.put(new byte[8], 8, 0)).isInstanceOf(IllegalArgumentException.class);
        byte[] nullKey = new KeyBuffer().appendNull().toByteArray();
        assertThatThrownBy(() -> index.get(nullKey, nullKey.length)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void growsByHalfAtThreeQuartersFullAndKeepsEveryKey() {
        LongKeyIndex index = new LongKeyIndex(16);
        int capacity = index.capacity();
        int grew = 0;
        for (int i = 0; i < 100_000; i++) {
            index.put(i * 7919L - 50_000, i);
            if (index.capacity() != capacity) {
                assertThat(index.capacity()).isEqualTo(capacity + capacity / 2);
                capacity = index.capacity();
                grew++;
            }
            assertThat(index.size()).isLessThanOrEqualTo(index.capacity() * 3 / 4 + 1);
        }
        assertThat(grew).isGreaterThan(10);
        for (int i = 0; i < 100_000; i++) {
            assertThat(index.get(i * 7919L - 50_000)).isEqualTo(i);
        }
        assertThat(index.get(1L << 40)).isEqualTo(KeyIndex.ABSENT);
    }

    @Test
    void memoryIsTwelveBytesASlotAndAtMostTwentyFourBytesAKeyPastTheFirstGrowth() {
        LongKeyIndex index = new LongKeyIndex();
        assertThat(index.memoryBytes()).isEqualTo(12L * index.capacity());
        int initial = index.capacity();
        Random random = new Random(seed("memoryIsTwelveBytesASlot"));
        for (int i = 0; i < 1_000_000; i++) {
            index.put(random.nextLong(), i);
            assertThat(index.memoryBytes()).isEqualTo(12L * index.capacity());
            if (index.size() > initial) {
                assertThat((double) index.memoryBytes() / index.size()).isLessThanOrEqualTo(24.0);
            }
        }
        assertThat((double) index.memoryBytes() / index.size()).isBetween(16.0, 24.0);
    }

    @Test
    void rowsBeyondAnIntAreRefusedRatherThanTruncated() {
        LongKeyIndex index = new LongKeyIndex();
        index.put(5, Integer.MAX_VALUE);
        assertThat(index.get(5)).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> index.put(6, Integer.MAX_VALUE + 1L))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink.memtable.max-rows");
        assertThat(index.get(6)).isEqualTo(KeyIndex.ABSENT);
    }
}
