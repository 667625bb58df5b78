package io.walsink.bench.jmh;

import io.walsink.format.key.KeyBuffer;
import io.walsink.shard.memtable.LongKeyIndex;
import io.walsink.shard.memtable.PrimaryKeyIndex;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Bytes per distinct key of the primary-key index against a {@code HashMap<ByteBuffer, Long>},
 * after a memtable's worth of puts. The index reports its own arrays; the map's cost is an
 * estimate from object layouts. Both are also measured as the heap they retain (after GC), which
 * is approximate but checks the two figures above.
 */
final class KeyMemory {
    /**
     * Per-entry layout on a 64-bit JVM with compressed references: HashMap.Node 32, boxed Long
     * 16, HeapByteBuffer 56, the key's byte[] (16-byte header + key, 8-byte aligned), plus one
     * 4-byte table slot per bucket at load factor 0.75 rounded up to a power of two.
     */
    private static final int NODE = 32;

    private static final int BOXED_LONG = 16;
    private static final int HEAP_BYTE_BUFFER = 56;
    /** Below this many keys the retained heap is within GC noise (TLABs, region rounding). */
    private static final int MEASURABLE_KEYS = 100_000;

    record Outcome(
            String structure,
            long puts,
            long keySpace,
            int distinctKeys,
            double bytesPerKey,
            double measuredBytesPerKey) {}

    private KeyMemory() {}

    static Outcome index(long puts, long keySpace) {
        byte[] keys = keys(puts, keySpace);
        int length = EncodedKeys.INT64_KEY_LENGTH;
        long before = usedHeapAfterGc();
        PrimaryKeyIndex index = new PrimaryKeyIndex();
        for (int i = 0; i < puts; i++) {
            index.put(keys, i * length, length, i);
        }
        long retained = usedHeapAfterGc() - before;
        Reference.reachabilityFence(index);
        return new Outcome(
                "PrimaryKeyIndex (key bytes)",
                puts,
                keySpace,
                index.size(),
                (double) index.memoryBytes() / index.size(),
                perKey(retained, index.size()));
    }

    /** The index a one-column integer key gets: the 64-bit key values, no key bytes. */
    static Outcome longIndex(long puts, long keySpace) {
        byte[] keys = keys(puts, keySpace);
        int length = EncodedKeys.INT64_KEY_LENGTH;
        long[] values = new long[Math.toIntExact(puts)];
        for (int i = 0; i < puts; i++) {
            values[i] = KeyBuffer.longBits(Arrays.copyOfRange(keys, i * length, (i + 1) * length), length);
        }
        keys = null;
        long before = usedHeapAfterGc();
        LongKeyIndex index = new LongKeyIndex();
        for (int i = 0; i < puts; i++) {
            index.put(values[i], i);
        }
        long retained = usedHeapAfterGc() - before;
        Reference.reachabilityFence(index);
        Reference.reachabilityFence(values);
        return new Outcome(
                "LongKeyIndex (int64 values)",
                puts,
                keySpace,
                index.size(),
                (double) index.memoryBytes() / index.size(),
                perKey(retained, index.size()));
    }

    static Outcome hashMap(long puts, long keySpace) {
        byte[] keys = keys(puts, keySpace);
        int length = EncodedKeys.INT64_KEY_LENGTH;
        long before = usedHeapAfterGc();
        Map<ByteBuffer, Long> map = new HashMap<>();
        for (int i = 0; i < puts; i++) {
            int from = i * length;
            map.put(ByteBuffer.wrap(Arrays.copyOfRange(keys, from, from + length)), (long) i);
        }
        long retained = usedHeapAfterGc() - before;
        Reference.reachabilityFence(map);
        int size = map.size();
        long tableSlots = Integer.highestOneBit((int) Math.ceil(size / 0.75) - 1) << 1;
        double perKey = NODE + BOXED_LONG + HEAP_BYTE_BUFFER + align8(16 + length) + 4.0 * tableSlots / size;
        return new Outcome("HashMap<ByteBuffer,Long> (estimate)", puts, keySpace, size, perKey, perKey(retained, size));
    }

    /** NaN when there are too few keys to tell the structure from GC noise. */
    private static double perKey(long retainedBytes, int keys) {
        return keys < MEASURABLE_KEYS ? Double.NaN : (double) retainedBytes / keys;
    }

    private static byte[] keys(long puts, long keySpace) {
        byte[] keys = new byte[Math.toIntExact(puts * EncodedKeys.INT64_KEY_LENGTH)];
        EncodedKeys.fillRandom(keys, keySpace, new SplittableRandom(13));
        return keys;
    }

    private static long align8(long bytes) {
        return (bytes + 7) & ~7L;
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
