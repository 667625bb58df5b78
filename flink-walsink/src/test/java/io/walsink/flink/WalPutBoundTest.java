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
                settle(h, 2); // lets a started append complete, as it would within a real millisecond or two
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
        // The ticker's bound: the first rows after idle at once, then one append per 100 ms tick,
        // then the barrier's. An append that outlasts its millisecond on a loaded machine moves rows
        // to one more entry (a fresh-clone run once counted 11 against 10), so both runs are held to
        // the bound rather than to each other; PUTs that grew with the row rate would be ~10x.
        assertThat(slow).isBetween(10L, 12L);
        assertThat(fast).isBetween(10L, 12L);
    }
}
