package io.walsink.flink;

import static io.walsink.flink.HarnessSupport.ROW;
import static io.walsink.flink.HarnessSupport.read;
import static io.walsink.flink.HarnessSupport.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.read.ReadMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job lineage moved from union list state to broadcast state (union state made Flink decline
 * checkpoints once some writer subtasks had finished). A checkpoint of the earlier layout still
 * restores with its lineage: its jobs' job-start records still roll back the shards they opened.
 */
class LegacyJobLineageTest {
    @TempDir
    Path dir;

    @Test
    void aCheckpointWithTheUnionListLineageStillRollsBackItsJobsShards() throws Exception {
        WalSink<RowData> sink = WalSink.forRowData(ROW)
                .path(dir.resolve("table").toString())
                .primaryKey("id")
                .createTableIfMissing(2)
                .flushInterval(Duration.ofMillis(100))
                .build();
        JobID earlier = new JobID();
        // The earlier job opens a shard (recording its start: empty) and makes rows durable, then dies.
        try (SinkHarness h = SinkHarness.of(sink, true, earlier, 1, 0)) {
            h.open();
            h.processElement(upsert(1, "never checkpointed"), 0);
            h.prepareSnapshotPreBarrier(1);
        }
        assertThat(read(dir.resolve("table"), ReadMode.LATEST)).containsKey(1L);

        // A checkpoint in the earlier layout whose lineage names that job (no shard had state yet).
        OperatorSubtaskState legacy;
        try (var writer = new OneInputStreamOperatorTestHarness<>(new UnionLineage(earlier.toHexString()))) {
            writer.open();
            legacy = writer.snapshot(1, 1);
        }
        try (SinkHarness h = SinkHarness.of(sink, true, new JobID(), 1, 0)) {
            h.initializeState(legacy);
            h.open();
        }
        assertThat(read(dir.resolve("table"), ReadMode.LATEST)).isEmpty();
    }

    /** Writes the lineage as releases before broadcast state did. */
    private static final class UnionLineage extends AbstractStreamOperator<RowData>
            implements OneInputStreamOperator<RowData, RowData> {
        private final String job;

        UnionLineage(String job) {
            this.job = job;
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            context.getOperatorStateStore()
                    .getUnionListState(new ListStateDescriptor<>("walsink-jobs", Types.STRING))
                    .update(List.of(job));
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {}
    }
}
