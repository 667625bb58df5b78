package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.walsink.storage.S3Options;
import io.walsink.testing.S3MockServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shaded connector on a standalone Flink 2.3 session cluster (JobManager and TaskManager as
 * separate JVMs): demo jobs submitted with {@code flink run} on a job jar built from it, the
 * TaskManager's direct memory after each job, a {@code kill -9} of the TaskManager mid-job, the SQL
 * client with {@code -j}, the walsink metrics through REST, a job on S3 (s3mock), and the catalog
 * with a column added between a job's checkpoint and its restore. The methods run in order on one
 * cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterIT {
    /**
     * How far above the baseline the TaskManager's direct memory may be once a job has ended and a
     * GC has run: one Netty chunk (4 MiB) of slack per slot for Flink's own pools. A leak of a
     * job's memtables, WAL buffers or allocator pools is tens of MiB or more.
     */
    static final long DIRECT_MEMORY_TOLERANCE = 8L << 20;

    static final Duration JOB_TIMEOUT = Duration.ofMinutes(4);
    static Workspace workspace;
    static StandaloneCluster cluster;
    static StandaloneCluster.TaskManager taskManager;
    static Path jobJar;
    static Path tables;
    static Long baselineDirectMemory;

    @RegisterExtension
    static final S3MockServer S3 = new S3MockServer();

    @BeforeAll
    static void startCluster() throws Exception {
        workspace = Workspace.create("cluster");
        tables = workspace.tables();
        jobJar = workspace.jobJar();
        cluster = new StandaloneCluster(workspace.home(), workspace.work());
        cluster.startJobManager();
        taskManager = cluster.startTaskManager();
    }

    @AfterAll
    static void stopCluster() throws IOException {
        Workspace.close(cluster);
    }

    @Test
    @Order(1)
    void aJobOnTheShadedJarWritesWhatTheModelSays() throws Exception {
        System.out.printf(
                "direct memory of the TaskManager before any job, after a GC: %,d bytes%n", directMemoryAfterGc());
        runDemo("job-1", 20_000, 1_000);
        baselineDirectMemory = directMemoryAfterGc();
        System.out.printf("direct memory of the TaskManager after job 1 and a GC: %,d bytes%n", baselineDirectMemory);
    }

    @Test
    @Order(2)
    void directMemoryReturnsToTheBaselineAfterEachJob() throws Exception {
        assertThat(baselineDirectMemory).as("the baseline measured after job 1").isNotNull();
        for (String job : List.of("job-2", "job-3")) {
            runDemo(job, 100_000, 5_000);
            // the writer gave its managed memory back when it closed
            String taskManagerId = cluster.onlyTaskManager();
            Poll.until(
                    Duration.ofSeconds(30),
                    "the TaskManager's Status.Flink.Memory.Managed.Used to be 0 after " + job,
                    () -> cluster.rest().taskManagerMetric(taskManagerId, "Status.Flink.Memory.Managed.Used"),
                    used -> used != null && used == 0);
            long limit = baselineDirectMemory + DIRECT_MEMORY_TOLERANCE;
            long used = directMemoryAfterGc();
            System.out.printf("direct memory of the TaskManager after %s and a GC: %,d bytes%n", job, used);
            if (used > limit) { // freed buffers are released by their cleaners shortly after the GC
                String tm = cluster.onlyTaskManager();
                Poll.until(
                        Duration.ofSeconds(30),
                        "the TaskManager's direct memory after " + job + " (Status.JVM.Memory.Direct.MemoryUsed) to"
                                + " return to the baseline " + baselineDirectMemory + " + " + DIRECT_MEMORY_TOLERANCE
                                + " bytes; after a full GC it was " + used + ": memory the finished job still holds",
                        () -> cluster.rest().taskManagerMetric(tm, "Status.JVM.Memory.Direct.MemoryUsed"),
                        v -> v <= limit);
            }
        }
    }

    @Test
    @Order(3)
    void aKilledTaskManagerIsReplacedAndTheJobRecovers() throws Exception {
        String name = "job-kill";
        Path table = tables.resolve(name);
        long rows = 40_000;
        int keys = 2_000;
        // 5,000 changes/s: the job runs about 8 s, long enough for checkpoints before the kill
        Process client = submitDemo(name, table.toString(), rows, keys, List.of("--rate", "5000"));
        String jobId = Poll.until(JOB_TIMEOUT, "the job to run", () -> Jobs.running(cluster.rest()), id -> true);
        // The writer's memory is the slot's managed memory, reserved from Flink's memory manager:
        // Flink's own metric counts it while the job runs (0 before the job, and 0 without the reservation).
        String tm = cluster.onlyTaskManager();
        Poll.until(
                JOB_TIMEOUT,
                "the TaskManager's Status.Flink.Memory.Managed.Used to show the writer's reservation (at least"
                        + " 99% of its slot's " + StandaloneCluster.SLOT_MANAGED + " bytes)",
                () -> cluster.rest().taskManagerMetric(tm, "Status.Flink.Memory.Managed.Used"),
                used -> used != null && used >= StandaloneCluster.SLOT_MANAGED * 99 / 100);
        long completed = Poll.until(
                JOB_TIMEOUT,
                "a completed checkpoint of job " + jobId,
                () -> Jobs.completedCheckpoints(cluster.rest(), jobId),
                n -> n >= 1);

        WalsinkMetrics.assertReported(cluster.rest(), jobId);

        cluster.killNine(taskManager.process());
        String state = Jobs.state(cluster.rest(), jobId);
        assertThat(state)
                .as("job state right after the kill (it must not have finished before it)")
                .isNotEqualTo("FINISHED");
        taskManager = cluster.startTaskManager();

        awaitClient(name, client);
        JsonNode exceptions = cluster.rest()
                .get("/jobs/" + jobId + "/exceptions")
                .get("exceptionHistory")
                .get("entries");
        assertThat(exceptions.size())
                .as("failures recorded by job %s after the kill (%d checkpoints completed before it)", jobId, completed)
                .isGreaterThanOrEqualTo(1);
        ModelCheck.assertIsTheModel(table.toString(), S3Options.defaults(), rows, keys);
    }

    @Test
    @Order(4)
    void theSqlClientCreatesInsertsAndSelects() throws Exception {
        SqlClientScript.run(cluster, tables.resolve("sql"), workspace.connectorJar());
    }

    /**
     * The AWS SDK (WAL, manifests) and lance-core's own S3 client (SSTables) from the shaded jar,
     * against s3mock: relocated HTTP clients and their logging must work in the TaskManager.
     */
    @Test
    @Order(5)
    void aJobWritesToS3ThroughTheShadedJar() throws Exception {
        String name = "job-s3";
        String table = "s3://" + S3MockServer.BUCKET + "/" + name;
        Process client = submitDemo(
                name,
                table,
                20_000,
                1_000,
                List.of("--s3-endpoint", S3.endpoint().toString(), "--s3-region", "us-east-1", "--s3-path-style"));
        awaitClient(name, client);
        ModelCheck.assertIsTheModel(table, S3.options(), 20_000, 1_000);
    }

    @Test
    @Order(6)
    void aCatalogTableGainsAColumnBetweenACheckpointAndTheRestoreOfItsInsertJob() throws Exception {
        CatalogEvolution.run(cluster, workspace, JOB_TIMEOUT);
    }

    private static void runDemo(String name, long rows, int keys) throws Exception {
        Path table = tables.resolve(name);
        Process client = submitDemo(name, table.toString(), rows, keys, List.of());
        awaitClient(name, client);
        ModelCheck.assertIsTheModel(table.toString(), S3Options.defaults(), rows, keys);
    }

    /** {@code flink run -c io.walsink.examples.UpsertDemo walsink-job.jar ...}, attached. */
    private static Process submitDemo(String name, String table, long rows, int keys, List<String> more)
            throws IOException {
        return Demo.submit(cluster, jobJar, name, List.of(), table, rows, keys, 4, more);
    }

    /** The client returns when the job has ended; the demo reads the table back and says whether it matches. */
    private static void awaitClient(String name, Process client) throws Exception {
        Demo.awaitClient(cluster, name, client, JOB_TIMEOUT, "table matches +YES");
    }

    private static Long directMemoryAfterGc() throws Exception {
        String tm = cluster.onlyTaskManager();
        long gcsBefore = WalsinkMetrics.gcCount(cluster.rest(), tm);
        cluster.collectGarbage(taskManager.process());
        Poll.until(
                Duration.ofSeconds(30),
                "the JobManager to fetch metrics taken after the GC",
                () -> WalsinkMetrics.gcCount(cluster.rest(), tm),
                n -> n > gcsBefore);
        return cluster.rest().taskManagerMetric(tm, "Status.JVM.Memory.Direct.MemoryUsed");
    }
}
