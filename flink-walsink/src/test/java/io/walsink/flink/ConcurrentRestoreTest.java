package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import io.walsink.storage.ForwardingObjectStore;
import io.walsink.storage.ObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer subtask restores its shards on several threads of its own (named
 * {@code walsink-restore-<subtask>-<n>}), not one after another on the task thread, and the
 * restored table still equals the checkpoint plus what came after it.
 */
class ConcurrentRestoreTest {
    /** Names of the threads that read the store's manifests while the current phase ran. */
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
            h.getOperator().finish();
            h.prepareSnapshotPreBarrier(2);
            h.snapshot(2, 2);
            h.notifyOfCompletedCheckpoint(2);
        }
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(model);
    }
}
