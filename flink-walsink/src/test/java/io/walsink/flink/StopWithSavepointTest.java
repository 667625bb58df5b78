package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.runMailsUntilRan;
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

    /**
     * {@code flink stop} (a suspending savepoint, no drain) at a max age above the checkpoint's (the
     * default, 0, publishes everything anyway).
     * The active memtable is young, so an ordinary checkpoint would leave it for a later one; but
     * no later checkpoint comes, and the published table must still hold everything the savepoint
     * covers, not just the memtables that happened to be full.
     */
    @Test
    void aStopWithSavepointAtAMaxAgeOfOneMinutePublishesEverythingItCovers() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(1)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(100)
                .memtableMaxAge(Duration.ofMinutes(1)) // a max age the active memtable stays below
                .build();
        Map<Long, String> expected = new TreeMap<>();
        SinkHarness h = SinkHarness.of(sink, true);
        h.open();
        for (long id = 0; id < 350; id++) { // three memtables freeze full; 50 rows stay in the active one
            h.processElement(upsert(id, "v" + id), 0);
            expected.put(id, "v" + id);
        }
        runMailsUntilRan(h, "walsink SSTable write", 3); // the full ones are SSTables
        h.setProcessingTime(1_000); // the active memtable is a second old: younger than the max age
        h.prepareSnapshotPreBarrier(1);
        h.snapshotWithLocalState(1, 1_000, SavepointType.suspend(SavepointFormatType.CANONICAL));
        h.notifyOfCompletedCheckpoint(1);
        h.closeWithoutFinish();
        Map<Long, String> latest = read(dir.resolve("table"), ReadMode.LATEST);
        Map<Long, String> committed = read(dir.resolve("table"), ReadMode.COMMITTED);
        assertThat(latest).as("LATEST rows after the stop").hasSize(expected.size());
        assertThat(committed.size())
                .as("COMMITTED rows after the stop (LATEST %d; the savepoint covers all of them)", latest.size())
                .isEqualTo(expected.size());
        assertThat(committed).isEqualTo(expected);
    }
}
