package io.walsink.bench.jobs;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.CheckpointStorageFactory;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;

/**
 * The jobs' checkpoint storage: the JobManager's memory, with room for SQL's datagen sequence.
 * That source keeps every value it has yet to emit in operator state, and Flink's file storage
 * writes list state with a flush, so a system call, per element: the checkpoints of a 12 M-row
 * SQL run cost 12-18 s of CPU in Flink's checkpoint threads, more in a longer run (a sink slower than
 * blackhole pays it more often), none of it the sink's work. In memory the same state costs
 * no system calls. Named by class in {@code execution.checkpointing.storage}.
 */
public final class InMemoryCheckpoints implements CheckpointStorageFactory<JobManagerCheckpointStorage> {
    /** Far above a 24 M-row run's datagen state (8 bytes a value, half the values per subtask). */
    static final int MAX_STATE_BYTES = 1 << 30;

    @Override
    public JobManagerCheckpointStorage createFromConfig(ReadableConfig config, ClassLoader classLoader) {
        return new JobManagerCheckpointStorage(MAX_STATE_BYTES);
    }
}
