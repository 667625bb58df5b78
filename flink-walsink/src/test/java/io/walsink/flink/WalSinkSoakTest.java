package io.walsink.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of {@link WalSinkSoak} the build checks: how it tells from a child's log why each restart
 * happened, and what a stopped job may have published. A whole short soak (four child JVMs, about
 * a minute and a half here) runs only with {@code -Dwalsink.soak.smoke=true}.
 */
class WalSinkSoakTest {
    @TempDir
    Path dir;

    @Test
    void eachRestartIsClassifiedByTheFailureLoggedBeforeIt() {
        SoakLog log = new SoakLog(List.of(
                "SOAK parallelism=2",
                "SOAK attempt=0 restored=none",
                "SOAK task-failure change=17",
                "12:00:00.001 WARN  Task - faults (1/1) switched from RUNNING to FAILED with failure cause:",
                "java.lang.IllegalStateException: injected failure at change 17",
                "\tat io.walsink.flink.WalSinkSoakJob$Faults.map(WalSinkSoakJob.java:1)",
                "SOAK attempt=1 restored=3",
                "SOAK store-fault=lost-ack _mem_wal/x/wal/0001.arrow",
                "12:00:01.000 WARN  Task - writer (2/2) switched from RUNNING to FAILED with failure cause:",
                "io.walsink.shard.io.ShardPoisonedException: shard x poisoned (AMBIGUOUS)",
                "Caused by: io.walsink.storage.OutcomeUnknownException: injected loss of the acknowledgement of"
                        + " PUT_IF_ABSENT call 9 (the write was applied)",
                "SOAK attempt=2 restored=4",
                "12:00:02.000 WARN  Task - writer (1/2) switched from RUNNING to FAILED with failure cause:",
                "java.lang.OutOfMemoryError: something nobody injected",
                "12:00:02.100 INFO  other - a log line ends the cause",
                "SOAK attempt=3 restored=5",
                "SOAK attempt=4 restored=6",
                "12:00:03.000 WARN  Task - writer (1/2) switched from RUNNING to FAILED with failure cause:",
                "io.walsink.shard.io.ShardPoisonedException: shard x poisoned (FENCED): WAL position 22 is taken",
                "SOAK savepoint=file:/tmp/sp"));

        assertThat(log.restored).containsExactly("none", "3", "4", "5", "6");
        assertThat(log.restartCount()).isEqualTo(4);
        assertThat(log.restarts)
                .containsEntry(SoakLog.Restart.TASK_FAILURE, 1)
                .containsEntry(SoakLog.Restart.STORE_FAULT, 1)
                .containsEntry(SoakLog.Restart.UNEXPLAINED, 2);
        assertThat(log.unexplained).hasSize(2);
        assertThat(log.unexplained.get(0)).contains("switched from RUNNING to FAILED");
        assertThat(log.unexplained.get(1)).contains("no task failure logged before attempt 4");
        assertThat(log.taskFailuresInjected).isEqualTo(1);
        assertThat(log.lostAcks).isEqualTo(1);
        assertThat(log.fencedFailures).isEqualTo(1);
        assertThat(log.parallelism).isEqualTo("2");
        assertThat(log.savepoint).isEqualTo("file:/tmp/sp");
    }

    /**
     * The sink publishes at a savepoint as at a checkpoint: once the savepoint completed, what the
     * job may have published is bounded by the savepoint's cover, also after Flink discarded the
     * finished job's checkpoints (which alone would have left no bound at all).
     */
    @Test
    void aCompletedSavepointBoundsWhatTheStoppedJobPublished() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Path coverDir = Files.createDirectories(dir.resolve("covers"));
        Path savepoints = dir.resolve("savepoints");
        Files.createDirectories(checkpoints.resolve("job").resolve("chk-3"));
        Files.writeString(checkpoints.resolve("job").resolve("chk-3").resolve("_metadata"), "");
        Files.writeString(coverDir.resolve("3"), "100");
        Files.writeString(coverDir.resolve("4"), "150"); // the savepoint's snapshot
        CheckpointCovers covers = new CheckpointCovers(List.of(), List.of(), 1_000);
        int job = covers.addJob(checkpoints, coverDir, savepoints);

        assertThat(covers.covered()).isEqualTo(100);
        Files.createDirectories(savepoints.resolve("savepoint-abc"));
        Files.writeString(savepoints.resolve("savepoint-abc").resolve("_metadata"), "");
        assertThat(covers.covered()).isEqualTo(150);
        Files.delete(checkpoints.resolve("job").resolve("chk-3").resolve("_metadata"));
        Files.delete(checkpoints.resolve("job").resolve("chk-3"));
        assertThat(covers.covered()).isEqualTo(150);
        assertThat(covers.lastRecordedCover(job)).isEqualTo(150);
    }

    /** Every kind once (the children end killed, as a zombie, rescaled, then stopped); about 1.5 min. */
    @Test
    @EnabledIfSystemProperty(named = "walsink.soak.smoke", matches = "true")
    void aShortSoakFiresEveryKindAndEndsClean() throws Exception {
        long seed = FailoverTestSupport.seed("aShortSoakFiresEveryKindAndEndsClean", 9_301);
        WalSinkSoak soak = new WalSinkSoak(
                WalSinkSoak.Options.parse(new String[] {
                    "--failovers", "1",
                    "--seed", Long.toString(seed),
                    "--path", dir.toString(),
                    "--schedule", "kill,zombie,rescale",
                    "--min-restarts-per-jvm", "1",
                    "--max-restarts-per-jvm", "1",
                    "--store-fault-probability", "0.05",
                    "--minutes", "10"
                }),
                System.out);
        boolean clean = soak.run();
        assertThat(soak.problems()).as("seed %d", seed).isEmpty();
        assertThat(clean).isTrue();
        assertThat(soak.failovers())
                .allSatisfy((kind, count) ->
                        assertThat(count).as("%s, seed %d", kind, seed).isPositive());
    }
}
