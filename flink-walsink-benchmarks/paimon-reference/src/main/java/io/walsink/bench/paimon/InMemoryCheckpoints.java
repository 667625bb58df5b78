package io.walsink.bench.paimon;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.CheckpointStorageFactory;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;

/**
 * The checkpoint storage of the walsink side's runs (their {@code InMemoryCheckpoints}, built
 * against Flink 2.3 there): the JobManager's memory with room for the datagen sequence's state,
 * so that a checkpoint costs no system call per remaining value on either side.
 */
public final class InMemoryCheckpoints implements CheckpointStorageFactory<JobManagerCheckpointStorage> {
    @Override
    public JobManagerCheckpointStorage createFromConfig(ReadableConfig config, ClassLoader classLoader) {
        return new JobManagerCheckpointStorage(1 << 30);
    }
}
