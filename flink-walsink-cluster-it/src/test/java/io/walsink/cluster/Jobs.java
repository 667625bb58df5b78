package io.walsink.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** A job as the JobManager's REST API shows it: its state, the walsink writer vertex, savepoints. */
final class Jobs {
    private Jobs() {}

    /** The id of the job in state RUNNING, or null when there is none. */
    static String running(Rest rest) throws IOException {
        for (JsonNode job : rest.get("/jobs/overview").get("jobs")) {
            if (job.get("state").asText().equals("RUNNING")) {
                return job.get("jid").asText();
            }
        }
        return null;
    }

    /**
     * Waits for a RUNNING job whose every task runs (a savepoint can only be taken then) and
     * returns its id.
     */
    static String awaitAllTasksRunning(Rest rest, Duration timeout) {
        return Poll.until(timeout, "a job with all its tasks RUNNING", () -> allTasksRunning(rest), id -> true);
    }

    private static String allTasksRunning(Rest rest) throws IOException {
        String id = running(rest);
        if (id == null) {
            return null;
        }
        for (JsonNode vertex : rest.get("/jobs/" + id).get("vertices")) {
            JsonNode tasks = vertex.get("tasks");
            if (tasks.get("RUNNING").asInt() != vertex.get("parallelism").asInt()) {
                return null;
            }
        }
        return id;
    }

    static String state(Rest rest, String jobId) throws IOException {
        return rest.get("/jobs/" + jobId).get("state").asText();
    }

    static void awaitState(Rest rest, String jobId, String state, Duration timeout) {
        Poll.until(timeout, "job " + jobId + " to be " + state, () -> state(rest, jobId), state::equals);
    }

    static long completedCheckpoints(Rest rest, String jobId) throws IOException {
        return rest.get("/jobs/" + jobId + "/checkpoints")
                .get("counts")
                .get("completed")
                .asLong();
    }

    /** Cancels the job and waits until it is CANCELED. */
    static void cancel(Rest rest, String jobId, Duration timeout) throws IOException {
        rest.patch("/jobs/" + jobId + "?mode=cancel");
        awaitState(rest, jobId, "CANCELED", timeout);
    }

    /** The location of the job's latest completed checkpoint ({@code flink run -s} takes it); null if none. */
    static String latestCheckpoint(Rest rest, String jobId) throws IOException {
        JsonNode completed =
                rest.get("/jobs/" + jobId + "/checkpoints").get("latest").get("completed");
        return completed == null || completed.isNull()
                ? null
                : completed.get("external_path").asText();
    }

    /** The walsink writer's vertex (the operator WalSink names "walsink writer: PATH"). */
    static JsonNode writer(Rest rest, String jobId) throws IOException {
        for (JsonNode vertex : rest.get("/jobs/" + jobId).get("vertices")) {
            if (vertex.get("name").asText().contains("walsink writer")) {
                return vertex;
            }
        }
        throw new AssertionError("job " + jobId + " has no walsink writer vertex");
    }

    /** Records the writers have read in this run of the job, summed over their subtasks. */
    static long recordsIntoWriters(Rest rest, String jobId) throws IOException {
        return writer(rest, jobId).get("metrics").get("read-records").asLong();
    }

    /** The TaskManagers of the writer's subtasks (their current attempts: after a failover, where they restarted). */
    static Set<String> writerTaskManagers(Rest rest, String jobId) throws IOException {
        String vertex = writer(rest, jobId).get("id").asText();
        Set<String> ids = new HashSet<>();
        for (JsonNode tm : rest.get("/jobs/" + jobId + "/vertices/" + vertex + "/taskmanagers")
                .get("taskmanagers")) {
            ids.add(tm.get("taskmanager-id").asText());
        }
        return ids;
    }

    /**
     * Stop-with-savepoint (not drained: the bounded source resumes where it stopped when the job is
     * restored); returns the savepoint's location once the job has FINISHED.
     */
    static String stopWithSavepoint(Rest rest, String jobId, Path directory, Duration timeout) throws IOException {
        String request = rest.post(
                        "/jobs/" + jobId + "/stop",
                        Map.of("targetDirectory", directory.toUri().toString(), "drain", false))
                .get("request-id")
                .asText();
        JsonNode done = Poll.until(
                timeout,
                "the stop-with-savepoint of job " + jobId + " to complete",
                () -> rest.get("/jobs/" + jobId + "/savepoints/" + request),
                r -> r.get("status").get("id").asText().equals("COMPLETED"));
        JsonNode operation = done.get("operation");
        if (operation.hasNonNull("failure-cause")) {
            throw new AssertionError("stop-with-savepoint of job " + jobId + " failed: " + operation);
        }
        awaitState(rest, jobId, "FINISHED", timeout);
        return operation.get("location").asText();
    }
}
