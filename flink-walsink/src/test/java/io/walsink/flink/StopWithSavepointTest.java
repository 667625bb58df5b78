package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static io.walsink.testing.Folders.ssTableFolders;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stop-with-savepoint (no drain, no {@code finish()}) publishes what the savepoint covers before the task closes. */
class StopWithSavepointTest {
    @TempDir
    Path dir;

    @AfterEach
    void openGate() {
        GatedStore.open();
    }

    @Test
    void aStopWithSavepointPublishesBeforeTheTaskCloses() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(1)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(100)
                .memtableMaxAge(Duration.ZERO) // the barrier waits until every memtable is an SSTable
                .storeWrapper(GatedStore::new)
                .build();
        GatedStore.closeFor(null);
        Map<Long, String> expected = new TreeMap<>();
        SinkHarness h = SinkHarness.of(sink, true);
        h.open();
        for (long id = 0; id < 350; id++) { // three memtables freeze; the barrier writes the fourth
            h.processElement(upsert(id, "v" + id), 0);
            expected.put(id, "v" + id);
        }
        h.prepareSnapshotPreBarrier(1);
        assertThat(ssTableFolders(dir.resolve("table"))).isEqualTo(4);
        h.snapshotWithLocalState(1, 1, SavepointType.terminate(SavepointFormatType.CANONICAL));

        // The publication's manifest write waits at the gate; only a mail run in the writer's own
        // wait opens it. A writer that does not wait closes with the publication cut short.
        GatedStore.closeFor("/manifest/");
        h.getTaskMailbox().put(new Mail(GatedStore::open, TaskMailbox.MAX_PRIORITY, "let the manifest write go"));
        h.notifyOfCompletedCheckpoint(1);
        h.closeWithoutFinish(); // stop-with-savepoint without drain: no finish()
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(expected);
    }
}
