package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.examples.ChangeStream;
import io.walsink.storage.S3Options;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The shaded connector in Flink's lib/ folder of a standalone Flink 2.3 cluster of two TaskManagers
 * with two slots each (Flink's default memory settings, as {@link StandaloneClusterIT}, which gives
 * the connector with each job instead): the upsert demo at parallelism
 * 4 into 8 buckets with compaction on, stopped with a savepoint and restored at parallelism 2, 3 (8
 * buckets do not divide among 3 writers) and 4; then restored at parallelism 2 across both
 * TaskManagers, one of which is killed with {@code kill -9}, so that the job recovers on the other
 * one's two slots; then SQL through the SQL client at parallelism 4, the catalog included. After every step the table is
 * read by walsink's reader and by LanceDB and must be the model of the changes written so far.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiTaskManagerIT {
    static final Duration TIMEOUT = StandaloneClusterIT.JOB_TIMEOUT;
    static final int BUCKETS = 8;
    /**
     * With {@link #RATE}, enough for the last run to go on for tens of seconds after its kill: each
     * savepoint run takes several thousand changes (measured 6,400 to 8,200 under load), most of them
     * buffered while its writers open.
     */
    static final long ROWS = 60_000;

    static final int KEYS = 2_000;
    static final String RATE = "1000";
    /** Records each run's writers must have read before it is stopped or its TaskManager killed. */
    static final long PER_RUN = 1_500;

    static StandaloneCluster cluster;
    static Workspace workspace;
    static Path table;
    static final List<StandaloneCluster.TaskManager> taskManagers = new ArrayList<>();
    static String savepoint;
    static ModelCheck.Prefix written;
    static int runs;

    @BeforeAll
    static void startCluster() throws Exception {
        workspace = Workspace.createWithConnectorInLib("multi-tm");
        table = workspace.tables().resolve("demo");
        // Spread the slots a job asks for over the TaskManagers, so that a parallelism-2 run has a
        // writer on each and a kill takes one of them away (Flink's default fills one TaskManager first).
        cluster = new StandaloneCluster(
                workspace.home(), workspace.work(), List.of("taskmanager.load-balance.mode: SLOTS"));
        cluster.startJobManager();
        taskManagers.add(cluster.startTaskManager());
        taskManagers.add(cluster.startTaskManager());
    }

    @AfterAll
    static void stopCluster() throws IOException {
        Workspace.close(cluster);
    }

    @Test
    @Order(1)
    void aSavepointRestoresAtParallelismTwoThreeAndFour() throws Exception {
        for (int parallelism : List.of(4, 2, 3, 4)) {
            String jobId = startRun(parallelism);
            assertThat(Jobs.writerTaskManagers(cluster.rest(), jobId))
                    .as("TaskManagers running the %d writers", parallelism)
                    .hasSize(2);
            Poll.until(
                    TIMEOUT,
                    PER_RUN + " records into the writers of job " + jobId,
                    () -> Jobs.recordsIntoWriters(cluster.rest(), jobId),
                    n -> n >= PER_RUN);
            savepoint = Jobs.stopWithSavepoint(
                    cluster.rest(), jobId, workspace.work().resolve("savepoints"), TIMEOUT);
            System.out.printf("run %d at parallelism %d stopped with savepoint %s%n", runs, parallelism, savepoint);
            assertTableIsAPrefixAfter(PER_RUN, "after the stop of run " + runs + " at parallelism " + parallelism);
        }
    }

    @Test
    @Order(2)
    void aJobRecoversOnTheOtherTaskManagerAfterAKillNine() throws Exception {
        assertThat(savepoint).as("the savepoint the runs before left").isNotNull();
        long seed = Long.getLong("walsink.test.seed", System.nanoTime());
        System.out.println(
                "which TaskManager is killed: seed " + seed + " (rerun with -Dwalsink.test.seed=" + seed + ")");
        StandaloneCluster.TaskManager victim = taskManagers.get(new Random(seed).nextInt(taskManagers.size()));
        StandaloneCluster.TaskManager survivor = taskManagers.get(1 - taskManagers.indexOf(victim));

        String jobId = startRun(2);
        assertThat(Jobs.writerTaskManagers(cluster.rest(), jobId))
                .as("TaskManagers running the 2 writers before the kill")
                .containsExactlyInAnyOrder(victim.id(), survivor.id());
        Poll.until(
                TIMEOUT,
                "a completed checkpoint and " + PER_RUN + " records into the writers of job " + jobId,
                () -> Jobs.completedCheckpoints(cluster.rest(), jobId) >= 1
                        && Jobs.recordsIntoWriters(cluster.rest(), jobId) >= PER_RUN,
                done -> done);

        cluster.killNine(victim.process());
        taskManagers.remove(victim);
        System.out.printf("killed TaskManager %s; %s keeps its slots%n", victim.id(), survivor.id());
        assertThat(Jobs.state(cluster.rest(), jobId))
                .as("job state right after the kill (it must not have finished before it)")
                .isNotEqualTo("FINISHED");
        Jobs.awaitState(cluster.rest(), jobId, "FINISHED", TIMEOUT);

        assertThat(cluster.rest()
                        .get("/jobs/" + jobId + "/exceptions")
                        .get("exceptionHistory")
                        .get("entries")
                        .size())
                .as("failures job %s recorded after the kill", jobId)
                .isGreaterThanOrEqualTo(1);
        assertThat(Jobs.writerTaskManagers(cluster.rest(), jobId))
                .as("where the writers ran after the recovery")
                .isEqualTo(Set.of(survivor.id()));
        assertTableIsAPrefixAfter(1, "after the job recovered from the kill and ended");
        assertThat(written.last())
                .as("the last change the table holds once the bounded stream has ended")
                .isEqualTo(ROWS);
        SqlClientScript.assertCompactionMerged(cluster.taskManagerLogs(), table);
    }

    @Test
    @Order(3)
    void theSqlClientWritesAtParallelismFourAndReadsBothTables() throws Exception {
        assertThat(written).as("the demo table's final state").isNotNull();
        // a replacement for the killed TaskManager: parallelism 4 needs all four slots again
        while (taskManagers.size() < 2) {
            taskManagers.add(cluster.startTaskManager());
        }
        MultiTaskManagerSql.run(
                cluster,
                workspace.sqlClientJar(),
                workspace.tables().resolve("sql"),
                table,
                new ChangeStream(KEYS).model(ROWS),
                workspace.tables().resolve("lake"));
    }

    /**
     * Submits the demo detached, from the last savepoint if there is one, at {@code parallelism};
     * returns the job's id once all its tasks run.
     */
    private static String startRun(int parallelism) throws Exception {
        String name = "run-" + (++runs) + "-p" + parallelism;
        List<String> options = new ArrayList<>(List.of("-d"));
        if (savepoint != null) {
            options.addAll(List.of("-s", savepoint));
        }
        Process client = Demo.submit(
                cluster,
                workspace.jobJar(),
                name,
                options,
                table.toString(),
                ROWS,
                KEYS,
                BUCKETS,
                List.of("--parallelism", Integer.toString(parallelism), "--rate", RATE, "--maintenance-interval", "1"));
        Demo.awaitClient(cluster, name, client, TIMEOUT, "submitted detached");
        String jobId = Jobs.awaitAllTasksRunning(cluster.rest(), TIMEOUT);
        assertThat(Jobs.writer(cluster.rest(), jobId).get("parallelism").asInt())
                .as("the writers' parallelism of %s", name)
                .isEqualTo(parallelism);
        return jobId;
    }

    /**
     * Both readers see the model of changes {@code 0..n-1} for some {@code n}, at least {@code
     * progress} changes past the last check: what the run had written before its savepoint or end.
     */
    private static void assertTableIsAPrefixAfter(long progress, String when) throws Exception {
        Map<Long, String> committed = ModelCheck.committed(table.toString(), S3Options.defaults(), "value");
        Map<Long, String> lanceDb = ModelCheck.lanceDb(table, "value");
        assertThat(lanceDb).as("LanceDB's read against walsink's %s", when).isEqualTo(committed);
        System.out.printf("table %s: %,d rows%n", when, committed.size());
        ModelCheck.Prefix prefix = ModelCheck.prefix(new ChangeStream(KEYS), ROWS, committed);
        System.out.printf("table %s: the model of the first %s changes%n", when, prefix);
        long before = written == null ? 0 : written.first();
        assertThat(prefix.last())
                .as("changes in the table %s, at least %,d past the %,d before", when, progress, before)
                .isGreaterThanOrEqualTo(before + progress);
        written = prefix;
    }
}
