package io.walsink.bench.jmh;

import org.junit.jupiter.api.Test;

/**
 * The JMH benchmark's set-up and each measured method run once, outside JMH: a configuration the
 * engine refuses, or a path that fails, fails here rather than only when someone runs JMH.
 */
class MemtablePutBenchmarkTest {
    @Test
    void setUpAndEachMethodRun() {
        MemtablePutBenchmark b = new MemtablePutBenchmark();
        b.keySpace = 10_000;
        b.open();
        try {
            b.nextKeys();
            b.driverWriteRow();
            b.recycleFullMemtables();
            b.nextKeys();
            b.shardPutBatch();
            b.recycleFullMemtables();
            b.baseline();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            b.close();
        }
    }
}
