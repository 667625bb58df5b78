package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.runMailsUntil;
import static io.walsink.flink.HarnessSupport.settle;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.storage.fault.FaultInjectingObjectStore;
import io.walsink.storage.fault.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WAL PUTs per shard follow the ticker, not the row rate: one simulated second at a 100 ms interval
 * gives about ten appends (plus one per barrier), whether 1,000 or 10,000 rows arrive.
 */
class WalPutBoundTest {
    static final AtomicReference<FaultInjectingObjectStore> COUNTER = new AtomicReference<>();

    @TempDir
    Path dir;

    private long walPutsFor(int rowsPerSecond, String tableName) throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve(tableName).toString())
                .primaryKey("id")
                .createTableIfMissing(1) // one shard, so every PUT is that shard's
                .flushInterval(Duration.ofMillis(100))
                // no SSTable at the barrier (max age 0, the default, writes one), so the only other
                // objects created are the claim and the job-start record
                .memtableMaxAge(Duration.ofMinutes(1))
                .storeWrapper(store -> {
                    FaultInjectingObjectStore counting = new FaultInjectingObjectStore(store);
                    COUNTER.set(counting);
                    return counting;
                })
                .build();
        try (var h = SinkHarness.of(sink)) {
            h.open();
            long before = COUNTER.get().completed(Operation.PUT_IF_ABSENT);
            int walEntriesBefore = HarnessSupport.walEntries(dir.resolve(tableName));
            int perMilli = rowsPerSecond / 1_000;
            long id = 0;
            for (long now = 1; now <= 1_000; now++) {
                for (int i = 0; i < perMilli; i++) {
                    h.processElement(upsert(id % 500, "v" + id), now);
                    id++;
                }
                h.setProcessingTime(now); // fires the ticker when due
                settle(h, 2); // pacing: lets a started append complete as it would in real time; nothing relies on it
            }
            h.prepareSnapshotPreBarrier(1); // one more append for the rows since the last tick
            h.snapshot(1, 1_000);
            runMailsUntil(h, () -> true);
            long puts = COUNTER.get().completed(Operation.PUT_IF_ABSENT) - before;
            long walPuts = HarnessSupport.walEntries(dir.resolve(tableName)) - walEntriesBefore;
            // besides WAL entries only the shard's claim and its job-start record are created
            assertThat(puts - walPuts).isEqualTo(2);
            return walPuts;
        }
    }

    @Test
    void tenTimesTheRowsStayWithinTheSameTickerBound() throws Exception {
        long slow = walPutsFor(1_000, "slow");
        long fast = walPutsFor(10_000, "fast");
        System.out.printf("WAL PUTs in one simulated second: %d at 1,000 rows/s, %d at 10,000 rows/s%n", slow, fast);
        // The ticker's bound, which no scheduling can raise: at most one append per tick, ticks at
        // least 100 simulated ms apart (the first rows after idle tick at once; a tick that finds
        // an append in flight starts none and asks for the next), then the barrier's; PUTs that
        // grew with the row rate would be ~10x. How many ticks found an append in flight depends
        // on how fast the I/O threads ran, so the count is bounded, not fixed: at least the first
        // append and the barrier's (rows keep arriving after the first). That each tick starts an
        // append is ShardDriversTest's and TickerTimerKeyTest's, on simulated time.
        assertThat(slow).isBetween(2L, 12L);
        assertThat(fast).isBetween(2L, 12L);
    }
}
