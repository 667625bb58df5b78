package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.publishedSsTables;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without checkpointing the promise is at-least-once: a restarted attempt of the same job keeps
 * what earlier attempts published and replays the WAL; it never rolls back to the job's start.
 */
class WithoutCheckpointingRestartTest {
    @TempDir
    Path dir;

    private WalSink<RowData> sink() {
        return WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .memtableMaxRows(1_000_000)
                .build();
    }

    @Test
    void aRestartOfTheSameJobKeepsWhatItPublished() throws Exception {
        WalSink<RowData> sink = sink();
        JobID job = new JobID();
        Map<Long, String> expected = new TreeMap<>();
        try (SinkHarness h = SinkHarness.of(sink, false, job, 1, 0)) {
            h.open();
            for (long id = 0; id < 100; id++) {
                h.processElement(upsert(id, "published-" + id), 0);
                expected.put(id, "published-" + id);
            }
            h.getOperator().finish(); // without checkpointing, end of input writes and publishes every SSTable
        }
        assertThat(publishedSsTables(dir.resolve("table"))).isPositive();
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(expected);

        // The same job's next attempt (a restart: Flink restores no state without checkpoints).
        try (SinkHarness h = SinkHarness.of(sink, false, job, 1, 0)) {
            h.open(); // opening the shards is where a rollback would happen
            h.processElement(upsert(100, "after-restart"), 10);
            expected.put(100L, "after-restart");
        }
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(expected);
        assertThat(read(dir.resolve("table"), ReadMode.LATEST)).isEqualTo(expected);
    }
}
