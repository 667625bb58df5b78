package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness.repackageState;
import static org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness.repartitionOperatorState;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restoring a checkpoint at parallelism 1 → 2 → 1 moves buckets between subtasks and loses nothing. */
class ShardWriterRescaleTest {
    private static final int MAX_PARALLELISM = 128;

    @TempDir
    Path dir;

    private final Map<Long, String> model = new TreeMap<>();
    private WalSink<RowData> sink;

    private SinkHarness harness(int parallelism, int index, OperatorSubtaskState state) throws Exception {
        var h = SinkHarness.of(sink, true, new JobID(), parallelism, index);
        if (state != null) {
            h.initializeState(state);
        }
        h.open();
        return h;
    }

    /** Sends each row to the subtask that owns its bucket, as Flink's keyBy would. */
    private void write(List<SinkHarness> subtasks, long from, long to, String tag) throws Exception {
        for (long id = from; id < to; id++) {
            RowData row = upsert(id, tag + id);
            int key = sink.keySelector(MAX_PARALLELISM).getKey(row);
            int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(key, MAX_PARALLELISM, subtasks.size());
            subtasks.get(owner).processElement(row, 0);
            model.put(id, tag + id);
        }
    }

    private List<OperatorSubtaskState> checkpoint(List<SinkHarness> subtasks, long id) throws Exception {
        List<OperatorSubtaskState> states = new ArrayList<>();
        for (var h : subtasks) {
            h.prepareSnapshotPreBarrier(id);
            states.add(h.snapshot(id, id));
        }
        for (var h : subtasks) {
            h.notifyOfCompletedCheckpoint(id);
        }
        return states;
    }

    @Test
    void oneToTwoToOne() throws Exception {
        sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(8)
                .flushInterval(Duration.ofMillis(50))
                .memtableMaxRows(64)
                .build();

        OperatorSubtaskState atOne;
        try (var h = harness(1, 0, null)) {
            write(List.of(h), 0, 300, "a");
            atOne = checkpoint(List.of(h), 1).get(0);
        }

        OperatorSubtaskState atTwo;
        var s0 = harness(2, 0, repartitionOperatorState(atOne, MAX_PARALLELISM, 1, 2, 0));
        var s1 = harness(2, 1, repartitionOperatorState(atOne, MAX_PARALLELISM, 1, 2, 1));
        try (s0;
                s1) {
            write(List.of(s0, s1), 150, 450, "b"); // updates half the old keys, adds new ones
            atTwo = repackageState(checkpoint(List.of(s0, s1), 2).toArray(new OperatorSubtaskState[0]));
            write(List.of(s0, s1), 0, 100, "lost"); // after the checkpoint, then the attempt dies
        }
        for (long id = 0; id < 100; id++) {
            model.put(id, "a" + id); // restored as of checkpoint 2: the "lost" rows are rolled back
        }

        try (var h = harness(1, 0, repartitionOperatorState(atTwo, MAX_PARALLELISM, 2, 1, 0))) {
            write(List.of(h), 400, 500, "c");
            h.getOperator().finish();
            checkpoint(List.of(h), 3);
        }
        assertThat(read(dir.resolve("table"), ReadMode.COMMITTED)).isEqualTo(model);
        assertThat(read(dir.resolve("table"), ReadMode.LATEST)).isEqualTo(model);
    }
}
