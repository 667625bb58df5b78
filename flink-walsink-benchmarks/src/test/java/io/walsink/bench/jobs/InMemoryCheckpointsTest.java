package io.walsink.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageLoader;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The jobs name their checkpoint storage by class; Flink must load it as such, with its room. */
class InMemoryCheckpointsTest {
    @Test
    void flinkLoadsTheStorageNamedByClassWithRoomForTheDatagenState() throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, InMemoryCheckpoints.class.getName());
        CheckpointStorage storage = CheckpointStorageLoader.fromConfig(
                        conf, getClass().getClassLoader(), LoggerFactory.getLogger(getClass()))
                .orElseThrow();
        assertThat(storage).isInstanceOf(JobManagerCheckpointStorage.class);
        long datagenStateOf24MRowsPerSubtask = 24_000_000L / 2 * Long.BYTES;
        assertThat((long) ((JobManagerCheckpointStorage) storage).getMaxStateSize())
                .isGreaterThan(datagenStateOf24MRowsPerSubtask);
    }
}
