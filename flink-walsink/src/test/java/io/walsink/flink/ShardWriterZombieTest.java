package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.runMailsUntil;
import static io.walsink.flink.HarnessSupport.upsert;
import static io.walsink.flink.HarnessSupport.walEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.walsink.read.ReadMode;
import io.walsink.shard.io.ShardPoisonedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two attempts of one shard alive at once (the old one not yet cancelled): the new one fences
 * the old at its next append, and nothing the old one wrote after the new one opened survives.
 */
class ShardWriterZombieTest {
    @TempDir
    Path dir;

    private SinkHarness harness(WalSink<RowData> sink) throws Exception {
        return SinkHarness.of(sink);
    }

    @Test
    void theOlderAttemptStopsAtItsNextAppendAndLeavesNoTrace() throws Exception {
        Path table = dir.resolve("table");
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(table.toString())
                .primaryKey("id")
                .createTableIfMissing(1)
                .flushInterval(Duration.ofMillis(10))
                .build();
        var zombie = harness(sink);
        zombie.open();
        zombie.processElement(upsert(1, "committed"), 0);
        zombie.prepareSnapshotPreBarrier(1);
        OperatorSubtaskState checkpoint = zombie.snapshot(1, 1);
        zombie.notifyOfCompletedCheckpoint(1);

        try (var successor = harness(sink)) {
            successor.initializeState(checkpoint);
            successor.open(); // claims epoch + 1 and writes the sentinel
            int entriesAfterSentinel = walEntries(table);

            zombie.processElement(upsert(1, "zombie"), 5);
            zombie.processElement(upsert(2, "zombie"), 5);
            zombie.setProcessingTime(1_000);
            assertThatThrownBy(() -> runMailsUntil(zombie, () -> false))
                    .isInstanceOf(ShardPoisonedException.class)
                    .hasMessageContaining("FENCED");
            assertThat(walEntries(table)).isEqualTo(entriesAfterSentinel);

            successor.processElement(upsert(3, "successor"), 5);
            successor.getOperator().finish();
            successor.prepareSnapshotPreBarrier(2);
            successor.snapshot(2, 2);
            successor.notifyOfCompletedCheckpoint(2);
        } finally {
            // The harness finishes the operator on close; a fenced writer refuses, as its task would fail.
            assertThatThrownBy(zombie::close).isInstanceOf(ShardPoisonedException.class);
        }
        Map<Long, String> expected = Map.of(1L, "committed", 3L, "successor");
        assertThat(read(table, ReadMode.COMMITTED)).isEqualTo(expected);
        assertThat(read(table, ReadMode.LATEST)).isEqualTo(expected);
    }
}
