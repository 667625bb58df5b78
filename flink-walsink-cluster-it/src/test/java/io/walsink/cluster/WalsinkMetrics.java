package io.walsink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Metrics through the JobManager's REST API, as the web UI reads them. */
final class WalsinkMetrics {
    /** Names the writer registers in its {@code walsink} group (ShardWriterMetrics). */
    static final List<String> COUNTERS = List.of("rowsIn", "walAppends", "walBytes");

    static final List<String> GAUGES = List.of("shards", "maxEpoch", "poisoned", "unflushedBytes", "pendingRows");

    /** What the test reads: the ids are long (operator names), and REST takes about 4 KB of URL. */
    private static final List<String> WANTED = concat(concat(COUNTERS, GAUGES), List.of("durableLagMs_p99"));

    private WalsinkMetrics() {}

    /**
     * Finds the vertex whose metrics include the walsink group and waits until its counters, summed
     * over the subtasks (a subtask may own no bucket), show rows and WAL appends; prints what the
     * web UI lists.
     */
    static void assertReported(Rest rest, String jobId) throws IOException {
        Map<String, String> values = Poll.until(
                Duration.ofSeconds(60),
                "walsink metrics of job " + jobId + " with rows in and WAL appends",
                () -> walsinkMetrics(rest, jobId),
                m -> positive(m, "rowsIn") && positive(m, "walAppends"));
        System.out.println("walsink metrics of the running job (vertex metric ids, every subtask):");
        values.forEach((id, value) -> System.out.printf("  %s = %s%n", id, value));
        for (String name : concat(COUNTERS, GAUGES)) {
            assertThat(values.keySet()).as("walsink metric %s", name).anyMatch(id -> id.endsWith(".walsink." + name));
        }
        assertThat(values.keySet())
                .as("the durable lag histogram")
                .anyMatch(id -> id.contains(".walsink.durableLagMs"));
        assertThat(sum(values, "poisoned")).as("poisoned shards").isZero();
    }

    /** Total collections so far, over the TaskManager's collectors. */
    static long gcCount(Rest rest, String taskManagerId) throws IOException {
        long total = 0;
        for (JsonNode metric : rest.get("/taskmanagers/" + taskManagerId + "/metrics")) {
            String id = metric.get("id").asText();
            if (id.startsWith("Status.JVM.GarbageCollector.") && id.endsWith(".Count") && !id.contains(".All.")) {
                Long count = rest.taskManagerMetric(taskManagerId, id);
                total += count == null ? 0 : count;
            }
        }
        return total;
    }

    /** The wanted {@code walsink} metrics of every subtask of the job's vertices, by REST metric id. */
    private static Map<String, String> walsinkMetrics(Rest rest, String jobId) throws IOException {
        Map<String, String> values = new TreeMap<>();
        for (JsonNode vertex : rest.get("/jobs/" + jobId).get("vertices")) {
            String base = "/jobs/" + jobId + "/vertices/" + vertex.get("id").asText() + "/metrics";
            List<String> ids = new ArrayList<>();
            for (JsonNode metric : rest.get(base)) {
                String id = metric.get("id").asText();
                if (WANTED.stream().anyMatch(name -> id.endsWith(".walsink." + name))) {
                    ids.add(id);
                }
            }
            if (!ids.isEmpty()) {
                for (JsonNode metric : rest.get(base + "?get=" + Rest.query(String.join(",", ids)))) {
                    values.put(metric.get("id").asText(), metric.get("value").asText());
                }
            }
        }
        return values;
    }

    private static boolean positive(Map<String, String> values, String name) {
        return sum(values, name) > 0;
    }

    private static double sum(Map<String, String> values, String name) {
        return values.entrySet().stream()
                .filter(e -> e.getKey().endsWith(".walsink." + name))
                .mapToDouble(e -> Double.parseDouble(e.getValue()))
                .sum();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
