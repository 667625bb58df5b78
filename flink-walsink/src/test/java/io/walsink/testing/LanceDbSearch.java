package io.walsink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Vector search and vector index creation on a walsink table through LanceDB's Node client
 * ({@code search.mjs}), as a LanceDB user does them: an independent reader of what walsink wrote,
 * with a newer Lance inside than the lance-core walsink writes with.
 */
public final class LanceDbSearch {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LanceDbSearch() {}

    /** One row of a search's answer: its key and its distance to the query vector (or its text score). */
    public record Hit(long id, double distance) {}

    /** The keys of {@code hits}, in their order. */
    public static List<Long> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }

    /** Creates an IVF_PQ index on {@code column} with LanceDB's {@code createIndex}. */
    public static void createIvfPq(Path table, String column, int partitions, int subVectors)
            throws IOException, InterruptedException {
        ObjectNode spec = JSON.createObjectNode();
        spec.putObject("index")
                .put("column", column)
                .put("type", "ivf_pq")
                .put("numPartitions", partitions)
                .put("numSubVectors", subVectors);
        JsonNode answer = run(table, spec).get(0);
        if (answer.hasNonNull("error")) {
            throw new IllegalStateException("LanceDB could not index " + table + ": "
                    + answer.get("error").asText());
        }
    }

    /**
     * The {@code k} nearest rows (column {@code id}) to each of {@code vectors}, nearest first, on
     * LanceDB's defaults ({@code lsm} null) or with its LSM read switched on or off.
     */
    public static List<List<Hit>> nearest(Path table, String column, List<float[]> vectors, int k, Boolean lsm)
            throws IOException, InterruptedException {
        return timedNearest(table, column, vectors, k, lsm).hits();
    }

    /** The answers of searches run one after another in one Node process, and each one's time in ms. */
    public record Timed(List<List<Hit>> hits, List<Double> millis) {}

    /** As {@link #nearest}, with the time LanceDB took for each search (the first one opens the table). */
    public static Timed timedNearest(Path table, String column, List<float[]> vectors, int k, Boolean lsm)
            throws IOException, InterruptedException {
        ObjectNode spec = search(column, k, lsm);
        ArrayNode all = spec.putArray("vectors");
        for (float[] v : vectors) {
            ArrayNode one = all.addArray();
            for (float f : v) {
                one.add(f);
            }
        }
        return hits(table, spec, vectors.size());
    }

    /**
     * The {@code k} best rows (column {@code id}, with LanceDB's BM25 score as the hit's distance) of a
     * full-text search for each of {@code texts} in {@code column}, on LanceDB's defaults ({@code lsm}
     * null) or with its LSM read switched on or off.
     */
    public static List<List<Hit>> fullText(Path table, String column, List<String> texts, int k, Boolean lsm)
            throws IOException, InterruptedException {
        ObjectNode spec = search(column, k, lsm);
        ArrayNode all = spec.putArray("texts");
        texts.forEach(all::add);
        return hits(table, spec, texts.size()).hits();
    }

    private static ObjectNode search(String column, int k, Boolean lsm) {
        ObjectNode spec = JSON.createObjectNode().put("column", column).put("k", k);
        spec.putArray("columns").add("id");
        if (lsm != null) {
            spec.put("lsm", lsm);
        }
        return spec;
    }

    private static Timed hits(Path table, ObjectNode spec, int searches) throws IOException, InterruptedException {
        List<JsonNode> answers = run(table, spec);
        if (answers.size() != searches) {
            throw new IllegalStateException(
                    "LanceDB answered " + answers.size() + " of " + searches + " searches: " + answers);
        }
        List<List<Hit>> hits = new ArrayList<>();
        List<Double> millis = new ArrayList<>();
        for (JsonNode answer : answers) {
            if (answer.hasNonNull("error")) {
                throw new IllegalStateException("LanceDB's search of " + table + " failed: " + answer.get("error"));
            }
            List<Hit> rows = new ArrayList<>();
            for (JsonNode row : answer.get("rows")) {
                rows.add(new Hit(row.get(0).asLong(), row.get(1).asDouble()));
            }
            hits.add(rows);
            millis.add(answer.path("ms").asDouble(Double.NaN));
        }
        return new Timed(hits, millis);
    }

    private static List<JsonNode> run(Path table, ObjectNode spec) throws IOException, InterruptedException {
        Path dir = LanceDb.install();
        Process node = new ProcessBuilder(
                        "node", "search.mjs", table.toAbsolutePath().toString())
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (OutputStream in = node.getOutputStream()) {
            in.write(JSON.writeValueAsBytes(spec)); // many vectors outgrow a command-line argument
        }
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(5, TimeUnit.MINUTES) || node.exitValue() != 0) {
            throw new IllegalStateException("node search.mjs failed on " + table + ": " + out);
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.lines().toList()) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }
}
