package io.walsink.flink;

import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.operators.testutils.MockInputSplitProvider;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;

/**
 * The one way tests put the writer operator under Flink's operator test harness: keyed by
 * bucket, with the job id and the job's checkpointing configuration chosen by the test, because
 * the operator reads both at run time (the job id names its job-start records).
 */
final class SinkHarness extends OneInputStreamOperatorTestHarness<RowData, RowData> {
    static final int MAX_PARALLELISM = 128;

    private final MockEnvironment environment;
    private boolean aborted;

    private SinkHarness(WalSink<RowData> sink, MockEnvironment environment, boolean checkpointing) throws Exception {
        super(sink.operatorFactory(), environment);
        this.environment = environment;
        config.setStatePartitioner(0, sink.keySelector(MAX_PARALLELISM));
        config.setStateKeySerializer(IntSerializer.INSTANCE);
        config.serializeAllConfigs();
        if (checkpointing) {
            environment.getJobConfiguration().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        }
    }

    /** Subtask 0 of 1, checkpointing on, a fresh job. */
    static SinkHarness of(WalSink<RowData> sink) throws Exception {
        return of(sink, true, new JobID(), 1, 0);
    }

    static SinkHarness of(WalSink<RowData> sink, boolean checkpointing) throws Exception {
        return of(sink, checkpointing, new JobID(), 1, 0);
    }

    static SinkHarness of(WalSink<RowData> sink, boolean checkpointing, JobID job, int parallelism, int subtask)
            throws Exception {
        return of(
                sink,
                checkpointing,
                job,
                parallelism,
                subtask,
                UnregisteredMetricGroups.createUnregisteredTaskMetricGroup());
    }

    /** Subtask 0 of 1, checkpointing on, a fresh job, reporting metrics into {@code metrics}. */
    static SinkHarness of(WalSink<RowData> sink, TaskMetricGroup metrics) throws Exception {
        return of(sink, true, new JobID(), 1, 0, metrics);
    }

    private static SinkHarness of(
            WalSink<RowData> sink,
            boolean checkpointing,
            JobID job,
            int parallelism,
            int subtask,
            TaskMetricGroup metrics)
            throws Exception {
        MockEnvironment environment = new MockEnvironmentBuilder()
                .setMetricGroup(metrics)
                .setTaskName("walsink writer")
                .setManagedMemorySize(3 * 1024 * 1024)
                .setInputSplitProvider(new MockInputSplitProvider())
                .setBufferSize(1024)
                .setMaxParallelism(MAX_PARALLELISM)
                .setParallelism(parallelism)
                .setSubtaskIndex(subtask)
                .setJobID(job)
                .build();
        return new SinkHarness(sink, environment, checkpointing);
    }

    /** Closes the operator the way a task that stops without draining does: no {@code finish()}. */
    void closeWithoutFinish() throws Exception {
        aborted = true;
        try {
            getOperator().close();
        } finally {
            environment.close();
        }
    }

    @Override
    public void close() throws Exception {
        if (aborted) {
            return;
        }
        try {
            super.close();
        } catch (Exception finishFailed) {
            // A task whose finish() fails still closes its operators (as Flink's StreamTask does):
            // the writer frees its memory and gives its managed memory back.
            try {
                getOperator().close();
            } catch (Exception closeFailed) {
                finishFailed.addSuppressed(closeFailed);
            }
            throw finishFailed;
        } finally {
            environment.close();
        }
    }
}
