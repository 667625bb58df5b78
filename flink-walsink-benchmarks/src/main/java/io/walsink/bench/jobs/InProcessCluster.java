package io.walsink.bench.jobs;

import java.net.URI;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One Flink MiniCluster in this JVM that several jobs run on at once (each local environment
 * would start a cluster of its own), reached through its REST address. The jobs' classes are this
 * JVM's, so their statics ({@link Arrivals}) and their clock are the caller's.
 */
final class InProcessCluster implements AutoCloseable {
    private final MiniCluster cluster;
    private final URI rest;

    private InProcessCluster(MiniCluster cluster, URI rest) {
        this.cluster = cluster;
        this.rest = rest;
    }

    static InProcessCluster start(int slots) throws Exception {
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(new Configuration())
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .withRandomPorts()
                .build());
        cluster.start();
        return new InProcessCluster(cluster, cluster.getRestAddress().get());
    }

    /** A new environment whose jobs run on this cluster. */
    StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), new Configuration());
    }

    /**
     * Waits until the job is running, at most {@code timeout}: a bounded poll of the job's status,
     * which Flink offers no notification of.
     */
    static void awaitRunning(JobClient job, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JobStatus status = job.getJobStatus().get();
        while (status != JobStatus.RUNNING) {
            if (status.isTerminalState() || System.nanoTime() > deadline) {
                throw new IllegalStateException("job " + job.getJobID() + " is " + status + ", not running");
            }
            Thread.sleep(50); // pause between polls of the status
            status = job.getJobStatus().get();
        }
    }

    /** The checkpoints of a job on this cluster, running or ended. */
    CheckpointFigures checkpoints(JobID job) throws Exception {
        return CheckpointFigures.of(cluster.getArchivedExecutionGraph(job).get().getCheckpointStatsSnapshot());
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
