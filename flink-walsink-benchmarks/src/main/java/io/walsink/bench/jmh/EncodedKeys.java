package io.walsink.bench.jmh;

import io.walsink.format.key.KeyBuffer;
import java.util.SplittableRandom;

/** Primary-key bytes exactly as the engine encodes an int64 key column, packed back to back. */
final class EncodedKeys {
    static final int INT64_KEY_LENGTH = new KeyBuffer().appendSigned(0).length();

    private EncodedKeys() {}

    /** Fills {@code out} with keys drawn uniformly from {@code [0, keySpace)}. */
    static void fillRandom(byte[] out, long keySpace, SplittableRandom random) {
        KeyBuffer key = new KeyBuffer(INT64_KEY_LENGTH);
        for (int at = 0; at + INT64_KEY_LENGTH <= out.length; at += INT64_KEY_LENGTH) {
            key.clear().appendSigned(random.nextLong(keySpace));
            System.arraycopy(key.array(), 0, out, at, INT64_KEY_LENGTH);
        }
    }
}
