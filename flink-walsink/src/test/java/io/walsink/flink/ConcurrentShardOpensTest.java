package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.read.ReadMode;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer subtask opens many shards on several threads of its own, not one after another on the
 * task thread: all it restores (threads {@code walsink-restore-<subtask>-<n>}), and at a job's first
 * start the buckets of a block of rows that have no shard yet ({@code walsink-open-<subtask>-<n>}).
 * The table still equals the model.
 */
class ConcurrentShardOpensTest {
    /** Names of the threads that read the store while the current phase ran. */
    private static final Set<String> READERS = ConcurrentHashMap.newKeySet();

    @TempDir
    Path dir;

    /** Records which thread reads a key; everything else passes through. */
    static final class ThreadRecordingStore extends ForwardingObjectStore {
        ThreadRecordingStore(ObjectStore delegate) {
            super(delegate);
        }

        @Override
        public byte[] get(String key) {
            READERS.add(Thread.currentThread().getName());
            return super.get(key);
        }
    }

    @Test
    void shardsAreRestoredOnTheSubtasksRestoreThreadsAndKeepTheirRows() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(8)
                .flushInterval(Duration.ofMillis(50))
                .ioThreads(4)
                .storeWrapper(ThreadRecordingStore::new)
                .build();
        Map<Long, String> model = new TreeMap<>();

        OperatorSubtaskState checkpoint;
        try (var h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.open();
            for (long id = 0; id < 400; id++) {
                h.processElement(upsert(id, "a" + id), 0);
                model.put(id, "a" + id);
            }
            h.prepareSnapshotPreBarrier(1);
            checkpoint = h.snapshot(1, 1);
            h.notifyOfCompletedCheckpoint(1);
            for (long id = 0; id < 50; id++) {
                h.processElement(upsert(id, "lost" + id), 0); // after the checkpoint: rolled back
            }
        }

        READERS.clear();
        try (var h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.initializeState(checkpoint);
            h.open();
            assertThat(READERS.stream().filter(t -> t.startsWith("walsink-restore-0-")))
                    .as("threads that read the store during the restore: %s", READERS)
                    .hasSizeGreaterThanOrEqualTo(2);
            for (long id = 400; id < 450; id++) {
                h.processElement(upsert(id, "b" + id), 0);
                model.put(id, "b" + id);
            }
            finishAndCommit(h, 2);
        }
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(model);
    }

    @Test
    void aFirstStartOpensTheShardsOfABlocksNewBucketsSideBySide() throws Exception {
        int buckets = 40; // more than RowsByBucket writes directly, so rows come in blocks
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(buckets)
                .flushInterval(Duration.ofMillis(50))
                .ioThreads(4)
                .storeWrapper(ThreadRecordingStore::new)
                .build();
        Map<Long, String> model = new TreeMap<>();

        READERS.clear();
        try (var h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.open();
            for (long id = 0; id < 1_000; id++) {
                h.processElement(upsert(id, "a" + id), 0);
                model.put(id, "a" + id);
            }
            finishAndCommit(h, 1);
        }
        assertThat(READERS.stream().filter(t -> t.startsWith("walsink-open-0-")))
                .as("threads that read the store while the shards opened: %s", READERS)
                .hasSizeGreaterThanOrEqualTo(2);
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(model);
    }

    /**
     * A subtask that will hold many shards opens even its first ones side by side: it counts the
     * buckets it owns, not the shards it holds so far (writing rows as they come would open one shard
     * after another on the task thread, until it held 17).
     */
    @Test
    void aFirstStartOfManyBucketsOpensNoShardOnTheTaskThread() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(40)
                .ioThreads(4)
                .storeWrapper(ThreadRecordingStore::new)
                .build();
        Map<Long, String> model = new TreeMap<>();
        String taskThread = Thread.currentThread().getName(); // the harness runs the operator here

        try (var h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.open();
            READERS.clear(); // opening the operator reads the table's shard list on the task thread
            for (long id = 0; id < 1_000; id++) {
                h.processElement(upsert(id, "a" + id), 0);
                model.put(id, "a" + id);
            }
            h.getOperator().finish(); // writes the rows held, opening their shards
            assertThat(READERS)
                    .as("threads that read the store while 40 shards opened")
                    .doesNotContain(taskThread)
                    .anyMatch(t -> t.startsWith("walsink-open-0-"));
            h.prepareSnapshotPreBarrier(1);
            h.snapshot(1, 1);
            h.notifyOfCompletedCheckpoint(1);
        }
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(model);
    }

    /** A block's bad first row of a bucket fails the block before any of its new buckets is claimed. */
    @Test
    void aBadFirstRowInABlockFailsBeforeAnyOfItsNewShardsIsClaimed() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(40)
                .ioThreads(4)
                .build();
        Path shards = dir.resolve("table").resolve("_mem_wal");
        RowData bad = GenericRowData.of(null, StringData.fromString("no key"));
        var keys = sink.keySelector(128);
        int badBucket = keys.getKey(bad);
        try (var h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.open();
            long id = 0;
            while (countShards(shards) <= 16) { // until a first block of rows opened its shards
                if (keys.getKey(upsert(id, "")) != badBucket) { // the bad row stays its bucket's first
                    h.processElement(upsert(id, "a" + id), 0);
                }
                id++;
            }
            int claimedBefore = countShards(shards);
            for (int i = 0; i < 500; i++, id++) {
                if (keys.getKey(upsert(id, "")) != badBucket) {
                    h.processElement(upsert(id, "b" + id), 0);
                }
            }
            h.processElement(bad, 0);

            assertThatThrownBy(() -> h.prepareSnapshotPreBarrier(1)).hasMessageContaining("id");
            assertThat(countShards(shards)).as("shards claimed").isEqualTo(claimedBefore);
        }
    }

    private static int countShards(Path memWal) throws IOException {
        if (!Files.isDirectory(memWal)) {
            return 0;
        }
        try (Stream<Path> shards = Files.list(memWal)) {
            return (int) shards.count();
        }
    }

    /** Ends the input and completes checkpoint {@code id}, publishing everything written. */
    private static void finishAndCommit(SinkHarness h, long id) throws Exception {
        h.getOperator().finish();
        h.prepareSnapshotPreBarrier(id);
        h.snapshot(id, id);
        h.notifyOfCompletedCheckpoint(id);
    }
}
