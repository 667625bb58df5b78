package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.delete;
import static io.walsink.flink.HarnessSupport.publishedSsTables;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.runMailsUntil;
import static io.walsink.flink.HarnessSupport.runMailsUntilRan;
import static io.walsink.flink.HarnessSupport.settle;
import static io.walsink.flink.HarnessSupport.upsert;
import static io.walsink.flink.HarnessSupport.walEntries;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import io.walsink.testing.CountingObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The keyed writer operator under Flink's operator test harness: timers, barriers, restore. */
class ShardWriterOperatorHarnessTest {
    /** The name of the mail that completes a WAL append on the task thread. */
    private static final String WAL_APPEND = "walsink WAL append";

    static final AtomicReference<CountingObjectStore> COUNTING_STORE = new AtomicReference<>();

    @TempDir
    Path dir;

    private WalSink<RowData> sink(long memtableMaxRows) {
        return WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(memtableMaxRows)
                .build();
    }

    /** Two buckets, one I/O thread, WAL PUTs counted as they start in {@link #COUNTING_STORE}. */
    private WalSinkBuilder<RowData> countingSink() {
        return WalSink.forRowData(ROW)
                .path(table().toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(1_000_000)
                .ioThreads(1)
                .storeWrapper(store -> {
                    CountingObjectStore counting = new CountingObjectStore(store);
                    COUNTING_STORE.set(counting);
                    return counting;
                });
    }

    private SinkHarness harness(WalSink<RowData> sink, boolean checkpointing) throws Exception {
        return SinkHarness.of(sink, checkpointing);
    }

    private Path table() {
        return dir.resolve("table");
    }

    /**
     * WAL PUTs are counted as they start, on a store wrapper, instead of looking at the stored
     * entries after a wall-clock pause. Two things make the counts exact without waiting: one I/O
     * thread, so an append begun earlier has started before a later one; and a probe row after
     * each "nothing yet" moment, which an append begun at that moment would not contain.
     */
    @Test
    void ticksDriveAppendsAtTheIntervalAndNothingWhileIdle() throws Exception {
        WalSink<RowData> sink = countingSink().build();
        try (var h = harness(sink, true)) {
            h.open();
            CountingObjectStore store = COUNTING_STORE.get();
            h.setProcessingTime(0);
            // the first row after idle is appended at once (its tick is due immediately) ...
            h.processElement(upsert(0, "first"), 0);
            h.setProcessingTime(1); // the harness fires due timers when its clock moves
            runMailsUntilRan(h, WAL_APPEND, 1);
            assertThat(store.walPutsStarted()).isEqualTo(1);
            // ... the following ones wait for the next tick, one interval after the last one ran
            for (long i = 0; i < 50; i++) {
                h.processElement(upsert(0, "v" + i), 10 + i); // one key: one bucket, one shard
            }
            h.setProcessingTime(100);
            assertThat(store.walPutsStarted()).isEqualTo(1);
            h.processElement(upsert(0, "at 100"), 100); // an append begun at 100 would not hold this row
            h.setProcessingTime(101); // one interval after the first tick ran (at 1)
            runMailsUntilRan(h, WAL_APPEND, 1);
            assertThat(store.walPutsStarted()).isEqualTo(2);
            assertThat(read(table(), ReadMode.LATEST)).isEqualTo(Map.of(0L, "at 100"));
            for (long i = 0; i < 50; i++) {
                h.processElement(upsert(0, "w" + i), 150);
            }
            h.setProcessingTime(200);
            assertThat(store.walPutsStarted()).isEqualTo(2);
            h.processElement(upsert(0, "at 200"), 200);
            h.setProcessingTime(201);
            runMailsUntilRan(h, WAL_APPEND, 1); // its completion marks the rows durable
            assertThat(store.walPutsStarted()).isEqualTo(3);
            assertThat(read(table(), ReadMode.LATEST)).isEqualTo(Map.of(0L, "at 200"));

            // idle: processing time advances without input; the last timer fires and finds nothing
            long walPuts = store.walPutsStarted();
            long otherPuts = store.otherPutsStarted();
            for (long now = 300; now <= 1_000; now += 50) {
                h.setProcessingTime(now);
            }
            assertThat(h.numProcessingTimeTimers()).isZero();
            assertThat(store.walPutsStarted()).isEqualTo(walPuts);
            // a probe: an append begun while idle would have run first on the single I/O thread,
            // and its completion would be the mail awaited here, without the probe's row
            h.processElement(upsert(0, "after idle"), 1_000);
            h.setProcessingTime(1_001);
            runMailsUntilRan(h, WAL_APPEND, 1);
            assertThat(store.walPutsStarted())
                    .as("WAL PUTs while idle, plus the probe's")
                    .isEqualTo(walPuts + 1);
            assertThat(store.otherPutsStarted()).as("other PUTs while idle").isEqualTo(otherPuts);
            assertThat(read(table(), ReadMode.LATEST)).isEqualTo(Map.of(0L, "after idle"));
        }
    }

    /**
     * {@code sink.wal.max-appends-per-second} 4 with both buckets' shards on one subtask: each
     * shard ticks every 500 ms (2 shards / 4 a second), not every 100 ms. Counted as above: the
     * appends of 501 ran on the single I/O thread after any that a tick at 101 would have started.
     */
    @Test
    void aSubtaskSpacesItsShardsTicksToStayWithinItsAppendRate() throws Exception {
        WalSink<RowData> sink = countingSink().walMaxAppendsPerSecond(4).build();
        try (var h = harness(sink, true)) {
            h.open();
            CountingObjectStore store = COUNTING_STORE.get();
            h.setProcessingTime(0);
            for (long id = 0; id < 20; id++) {
                h.processElement(upsert(id, "first"), 0);
            }
            assertThat(HarnessSupport.shards(table()))
                    .as("both buckets' shards open")
                    .hasSize(2);
            h.setProcessingTime(1); // each shard's first tick is due at once
            runMailsUntilRan(h, WAL_APPEND, 2);
            assertThat(store.walPutsStarted()).isEqualTo(2);
            for (long id = 0; id < 20; id++) {
                h.processElement(upsert(id, "at 10"), 10);
            }
            h.setProcessingTime(101); // one flush interval after the first ticks: not yet
            h.setProcessingTime(499);
            h.processElement(upsert(0, "at 499"), 499);
            h.setProcessingTime(501); // 500 ms after the first ticks ran
            runMailsUntilRan(h, WAL_APPEND, 2);
            assertThat(store.walPutsStarted())
                    .as("WAL PUTs: the first ticks', then one per shard at 501")
                    .isEqualTo(4);
            Map<Long, String> latest = read(table(), ReadMode.LATEST);
            assertThat(latest).hasSize(20).containsEntry(0L, "at 499").containsEntry(1L, "at 10");
        }
    }

    /**
     * 32 buckets on one subtask, more shards than {@code RowsByBucket} writes rows to directly: rows
     * wait in a block from the first one on, and the barrier writes them before it appends, so
     * the checkpoint covers every row taken before it; of a key updated three times within the
     * block, the newest value wins.
     */
    @Test
    void aBarrierWritesTheRowsHeldForManyShardsFirst() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table().toString())
                .primaryKey("id")
                .createTableIfMissing(32)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(1_000_000)
                .build();
        try (var h = harness(sink, true)) {
            h.open();
            h.setProcessingTime(0);
            Map<Long, String> model = new java.util.TreeMap<>();
            for (long id = 0; id < 300; id++) {
                h.processElement(upsert(id, "v" + id), 0);
                model.put(id, "v" + id);
            }
            for (int i = 0; i < 3; i++) {
                h.processElement(upsert(5, "update " + i), 0);
            }
            model.put(5L, "update 2");
            assertThat(HarnessSupport.shards(table()))
                    .as("shards open while the rows wait in a block (the processing-time wait never ran)")
                    .isEmpty();
            assertThat(read(table(), ReadMode.LATEST))
                    .as("nothing durable before the barrier")
                    .isEmpty();

            h.prepareSnapshotPreBarrier(1);
            h.snapshot(1, 1);
            assertThat(read(table(), ReadMode.LATEST)).isEqualTo(model);
        }
    }

    @Test
    void aBarrierMakesEveryPendingRowDurable() throws Exception {
        try (var h = harness(sink(1_000_000), true)) {
            h.open();
            for (long id = 0; id < 100; id++) {
                h.processElement(upsert(id, "v" + id), 0);
            }
            h.prepareSnapshotPreBarrier(1);
            h.snapshot(1, 1);
            assertThat(walEntries(table()))
                    .isEqualTo(HarnessSupport.shards(table()).size());
            assertThat(read(table(), ReadMode.LATEST)).hasSize(100);
            assertThat(read(table(), ReadMode.COMMITTED)).isEmpty();
        }
    }

    @Test
    void restoreContinuesAndNeverReplaysOrphans() throws Exception {
        WalSink<RowData> sink = sink(1_000_000);
        OperatorSubtaskState checkpoint;
        try (var h = harness(sink, true)) {
            h.open();
            h.processElement(upsert(1, "a"), 0);
            h.processElement(upsert(2, "b"), 0);
            h.prepareSnapshotPreBarrier(1);
            checkpoint = h.snapshot(1, 1);
            h.notifyOfCompletedCheckpoint(1);
            // after the checkpoint: rows that reach the WAL, then the attempt fails
            h.processElement(upsert(1, "orphan"), 10);
            h.processElement(upsert(3, "orphan"), 10);
            h.processElement(delete(2), 10);
            h.prepareSnapshotPreBarrier(2); // durable, but checkpoint 2 never completes
            assertThat(read(table(), ReadMode.LATEST))
                    .containsEntry(1L, "orphan")
                    .doesNotContainKey(2L);
        }
        try (var h = harness(sink, true)) {
            h.initializeState(checkpoint);
            h.open();
            assertThat(read(table(), ReadMode.LATEST)).isEqualTo(Map.of(1L, "a", 2L, "b"));
            h.processElement(upsert(4, "d"), 20);
            h.getOperator().finish();
            assertThat(read(table(), ReadMode.COMMITTED)).doesNotContainKey(4L); // not before the final checkpoint
            h.prepareSnapshotPreBarrier(3);
            h.snapshot(3, 30);
            h.notifyOfCompletedCheckpoint(3);
        }
        assertThat(read(table(), ReadMode.COMMITTED)).isEqualTo(Map.of(1L, "a", 2L, "b", 4L, "d"));
        // a plain reopen by anyone (a new job, or Lance) replays from the rolled-back manifests
        try (var h = harness(sink, false)) {
            h.open();
            h.getOperator().finish();
        }
        assertThat(read(table(), ReadMode.LATEST)).isEqualTo(Map.of(1L, "a", 2L, "b", 4L, "d"));
    }

    @Test
    void sstablesArePublishedOnlyWhenTheirCheckpointCompletes() throws Exception {
        try (var h = harness(sink(10), true)) {
            h.open();
            for (long id = 0; id < 200; id++) {
                h.processElement(upsert(id, "v" + id), 0);
            }
            h.prepareSnapshotPreBarrier(1);
            runMailsUntil(h, () -> true);
            settle(h, 300); // SSTable writes of the frozen memtables finish
            h.snapshot(1, 1);
            h.getOperator().notifyCheckpointAborted(1);
            settle(h, 100);
            assertThat(publishedSsTables(table())).isZero();
            assertThat(read(table(), ReadMode.COMMITTED)).isEmpty();

            h.prepareSnapshotPreBarrier(2);
            h.snapshot(2, 2);
            h.notifyOfCompletedCheckpoint(2);
            runMailsUntil(h, () -> publishedSsTables(table()) > 0);
            settle(h, 100);
            assertThat(read(table(), ReadMode.COMMITTED)).hasSizeGreaterThan(0).hasSizeLessThanOrEqualTo(200);
            h.getOperator().finish();
            h.snapshot(3, 3);
            h.notifyOfCompletedCheckpoint(3);
        }
        assertThat(read(table(), ReadMode.COMMITTED)).hasSize(200);
    }

    @Test
    void withoutCheckpointingSsTablesArePublishedWhenWritten() throws Exception {
        try (var h = harness(sink(10), false)) {
            h.open();
            for (long id = 0; id < 100; id++) {
                h.processElement(upsert(id, "v" + id), 0);
            }
            h.setProcessingTime(100);
            runMailsUntil(h, () -> publishedSsTables(table()) > 0);
        }
    }
}
