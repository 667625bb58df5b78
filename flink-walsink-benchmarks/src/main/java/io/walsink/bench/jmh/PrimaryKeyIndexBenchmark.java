package io.walsink.bench.jmh;

import io.walsink.format.key.KeyBuffer;
import io.walsink.shard.ShardWriterConfig;
import io.walsink.shard.memtable.LongKeyIndex;
import io.walsink.shard.memtable.PrimaryKeyIndex;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Puts per second into the memtable's primary-key indexes against the obvious Java structure, a
 * {@code HashMap<ByteBuffer, Long>} holding a copy of each key. Keys are the real encoded int64
 * key bytes for the byte-key index ({@code indexPut}) and the map, and the same keys' 64-bit
 * values for the index an int64 key gets ({@code longIndexPut}, as the memtable reads them from
 * the key column). All structures start empty and are dropped after a memtable's worth of puts.
 * Bytes per key are reported by {@link KeyMemory}, not here.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@ReportedAs(unit = "puts/s")
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class PrimaryKeyIndexBenchmark {
    static final int PUTS = 8_192;

    @Param({"1000000", "10000"})
    public long keySpace;

    private final SplittableRandom random = new SplittableRandom(7);
    private byte[] keys;
    private long[] values;
    private int keyLength;
    private long row;
    private PrimaryKeyIndex index;
    private LongKeyIndex longIndex;
    private Map<ByteBuffer, Long> map;

    @Setup(Level.Trial)
    public void open() {
        keyLength = EncodedKeys.INT64_KEY_LENGTH;
        keys = new byte[PUTS * keyLength];
        values = new long[PUTS];
        fresh();
    }

    @Setup(Level.Invocation)
    public void nextKeys() {
        EncodedKeys.fillRandom(keys, keySpace, random);
        byte[] key = new byte[keyLength];
        for (int i = 0; i < PUTS; i++) {
            System.arraycopy(keys, i * keyLength, key, 0, keyLength);
            values[i] = KeyBuffer.longBits(key, keyLength);
        }
    }

    @Benchmark
    @OperationsPerInvocation(PUTS)
    public void baseline() {
        for (int i = 0; i < PUTS; i++) {
            int from = i * keyLength;
            map.put(ByteBuffer.wrap(Arrays.copyOfRange(keys, from, from + keyLength)), row++);
        }
    }

    @Benchmark
    @OperationsPerInvocation(PUTS)
    public void indexPut() {
        for (int i = 0; i < PUTS; i++) {
            index.put(keys, i * keyLength, keyLength, row++);
        }
    }

    @Benchmark
    @OperationsPerInvocation(PUTS)
    public void longIndexPut() {
        for (int i = 0; i < PUTS; i++) {
            longIndex.put(values[i], row++);
        }
    }

    @TearDown(Level.Invocation)
    public void recycleAfterOneMemtable() {
        if (row >= ShardWriterConfig.DEFAULT_MEMTABLE_MAX_ROWS) {
            fresh();
        }
    }

    private void fresh() {
        index = new PrimaryKeyIndex();
        longIndex = new LongKeyIndex();
        map = new HashMap<>();
        row = 0;
    }
}
