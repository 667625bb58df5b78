package io.walsink.shard.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrimaryKeyIndexTest {

    @Test
    void newestRowWinsAndPreviousIsReported() {
        PrimaryKeyIndex index = new PrimaryKeyIndex(4);
        byte[] a = "a".getBytes(StandardCharsets.UTF_8);
        assertThat(index.put(a, 0, 1, 0)).isEqualTo(PrimaryKeyIndex.ABSENT);
        assertThat(index.put(a, 0, 1, 7)).isEqualTo(0);
        assertThat(index.get(a, 0, 1)).isEqualTo(7);
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void keysAreComparedByContentWithinASlice() {
        PrimaryKeyIndex index = new PrimaryKeyIndex();
        byte[] buffer = "xxabyy".getBytes(StandardCharsets.UTF_8);
        index.put(buffer, 2, 2, 3);
        assertThat(index.get("ab".getBytes(StandardCharsets.UTF_8), 0, 2)).isEqualTo(3);
        assertThat(index.get("a".getBytes(StandardCharsets.UTF_8), 0, 1)).isEqualTo(PrimaryKeyIndex.ABSENT);
        assertThat(index.get(new byte[0], 0, 0)).isEqualTo(PrimaryKeyIndex.ABSENT);
    }

    @Test
    void emptyKeyIsAKeyLikeAnyOther() {
        PrimaryKeyIndex index = new PrimaryKeyIndex();
        index.put(new byte[0], 0, 0, 5);
        assertThat(index.get(new byte[3], 1, 0)).isEqualTo(5);
    }

    @Test
    void agreesWithAMapOverManyRandomKeysThroughSeveralRehashes() {
        PrimaryKeyIndex index = new PrimaryKeyIndex(16);
        Map<ByteBuffer, Long> model = new HashMap<>();
        Random random = new Random(42);
        for (long row = 0; row < 200_000; row++) {
            byte[] key = new byte[random.nextInt(12)];
            random.nextBytes(key);
            if (key.length > 2) {
                key[0] = (byte) random.nextInt(4); // force shared prefixes and collisions
            }
            Long previous = model.put(ByteBuffer.wrap(key), row);
            assertThat(index.put(key, 0, key.length, row))
                    .isEqualTo(previous == null ? PrimaryKeyIndex.ABSENT : previous);
        }
        assertThat(index.size()).isEqualTo(model.size());
        for (Map.Entry<ByteBuffer, Long> e : model.entrySet()) {
            byte[] key = e.getKey().array();
            assertThat(index.get(key, 0, key.length)).isEqualTo(e.getValue());
        }
    }

    @Test
    void memoryPerKeyStaysSmall() {
        PrimaryKeyIndex index = new PrimaryKeyIndex(16);
        byte[] key = new byte[9];
        int keys = 1_000_000;
        for (int i = 0; i < keys; i++) {
            ByteBuffer.wrap(key).putLong(1, i);
            index.put(key, 0, key.length, i);
        }
        // 9 key bytes + 20 bytes of entry arrays + slots, with growth slack; a boxed HashMap
        // entry per key would cost well over 100 bytes.
        assertThat(index.memoryBytes() / keys).isLessThan(80);
    }
}
