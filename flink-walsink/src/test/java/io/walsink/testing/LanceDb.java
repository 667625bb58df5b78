package io.walsink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * LanceDB's Node client ({@code @lancedb/lancedb}, whose core is a newer Lance than lance-core
 * 7.0.0) as an independent reader of what walsink writes. {@code package.json} (which pins the exact
 * version) and {@code read.mjs} are test resources under {@code lancedb/} on the classpath (from
 * flink-walsink's test classes or its test-jar), extracted into {@code target/lancedb} of the module
 * whose tests run (surefire's working directory); the package is installed from npm there the first
 * time a test of that module needs it, and again only when the pinned package.json changed. Each
 * {@link #read} runs {@code read.mjs} in a Node process of its own; a {@link Session} keeps one Node
 * process ({@code serve.mjs}) for many reads, so that a test timing reads does not count Node's start.
 */
public final class LanceDb {
    private static final String RESOURCES = "/lancedb/";
    private static final Path INSTALL = Path.of("target/lancedb");
    private static final List<String> FILES =
            List.of("package.json", "queries.mjs", "read.mjs", "named.mjs", "serve.mjs", "search.mjs", "create.mjs");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static boolean installed;

    private LanceDb() {}

    /**
     * A query as a LanceDB user writes it.
     *
     * @param where a filter in Lance's SQL, or null for all rows
     * @param lsm null for LanceDB's default read; false for the base table only
     * @param version null, or a version number or tag name the table is checked out at for this query
     * @param countRows whether the query is {@code table.countRows(where)}: one row, the count
     */
    public record Query(
            String name, String where, List<String> columns, Boolean lsm, Object version, boolean countRows) {
        public Query(String name, String where, List<String> columns, Boolean lsm) {
            this(name, where, columns, lsm, null);
        }

        public Query(String name, String where, List<String> columns, Boolean lsm, Object version) {
            this(name, where, columns, lsm, version, false);
        }

        /** LanceDB's {@code countRows(where)} (the base table's rows), as one row with one value. */
        public static Query countRows(String name, String where) {
            return new Query(name, where, List.of("count"), null, null, true);
        }

        public static Query of(String name, String where, List<String> columns) {
            return new Query(name, where, columns, null);
        }

        /** The base table alone at {@code version} (a number or a tag name), as {@code checkout(version)} reads it. */
        public static Query checkout(String name, List<String> columns, Object version) {
            return new Query(name, null, columns, false, version);
        }
    }

    /**
     * What one query returned: its rows (values as strings, nested ones as JSON, null as null), or
     * LanceDB's error.
     */
    public record Result(List<List<String>> rows, String error) {
        public boolean failed() {
            return error != null;
        }
    }

    /** Runs {@code queries} on the table at {@code table}, in one Node process. */
    public static Map<String, Result> read(Path table, List<Query> queries) throws IOException, InterruptedException {
        Path dir = install();
        Process node = new ProcessBuilder(
                        "node", "read.mjs", table.toAbsolutePath().toString(), spec(queries))
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(5, TimeUnit.MINUTES) || node.exitValue() != 0) {
            throw new IllegalStateException("node read.mjs failed on " + table + ": " + out);
        }
        return results(table, queries, out.lines().toList());
    }

    /**
     * Runs {@code queries} on the table LanceDB opens as {@code connect(root).openTable(name)}; the
     * answer also holds, as "tableNames", the names LanceDB lists in {@code root} (one column).
     */
    public static Map<String, Result> readByName(Path root, String name, List<Query> queries)
            throws IOException, InterruptedException {
        Path dir = install();
        Process node = new ProcessBuilder(
                        "node", "named.mjs", root.toAbsolutePath().toString(), name, spec(queries))
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(5, TimeUnit.MINUTES) || node.exitValue() != 0) {
            throw new IllegalStateException("node named.mjs failed on " + name + " in " + root + ": " + out);
        }
        List<Query> answered = new ArrayList<>(queries);
        answered.add(Query.of("tableNames", null, List.of("name")));
        return results(root.resolve(name), answered, out.lines().toList());
    }

    /** Creates table {@code name} in database folder {@code root} as a LanceDB user does, from JSON rows. */
    public static void create(Path root, String name, String rowsJson) throws IOException, InterruptedException {
        Path dir = install();
        Process node = new ProcessBuilder(
                        "node", "create.mjs", root.toAbsolutePath().toString(), name, rowsJson)
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(5, TimeUnit.MINUTES) || node.exitValue() != 0) {
            throw new IllegalStateException("node create.mjs failed on " + name + " in " + root + ": " + out);
        }
    }

    private static String spec(List<Query> queries) throws IOException {
        ArrayNode spec = JSON.createArrayNode();
        for (Query q : queries) {
            ObjectNode node = spec.addObject().put("name", q.name()).put("where", q.where());
            q.columns().forEach(node.putArray("columns")::add);
            if (q.lsm() != null) {
                node.put("lsm", q.lsm());
            }
            if (q.countRows()) {
                node.put("countRows", true);
            }
            if (q.version() instanceof Number n) {
                node.put("version", n.longValue());
            } else if (q.version() != null) {
                node.put("version", q.version().toString());
            }
        }
        return JSON.writeValueAsString(spec);
    }

    /** The JSON lines the Node script printed for {@code queries}, one per query. */
    private static Map<String, Result> results(Path table, List<Query> queries, List<String> lines) throws IOException {
        Map<String, Result> results = new LinkedHashMap<>();
        for (String line : lines) {
            JsonNode r = JSON.readTree(line);
            if (r.hasNonNull("error")) {
                results.put(
                        r.get("name").asText(),
                        new Result(List.of(), r.get("error").asText()));
                continue;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode row : r.get("rows")) {
                List<String> values = new ArrayList<>();
                // nested values (structs, lists, maps) as their JSON text
                row.forEach(v -> values.add(v.isNull() ? null : v.isContainerNode() ? v.toString() : v.asText()));
                rows.add(values);
            }
            results.put(r.get("name").asText(), new Result(rows, null));
        }
        if (results.size() != queries.size()) {
            throw new IllegalStateException("LanceDB answered " + results.size() + " of " + queries.size()
                    + " queries on " + table + ": " + lines);
        }
        return results;
    }

    /**
     * One Node process ({@code serve.mjs}) answering reads of one table until closed: each {@link
     * #read} connects and opens the table anew, as a new LanceDB reader would, without Node's start
     * (about a second) in its time. One read at a time.
     */
    public static final class Session implements AutoCloseable {
        private final Path table;
        private final Process node;
        private final BufferedWriter requests;
        private final BufferedReader answers;
        /** The base table version the last request's handle had opened; 0 if none. */
        private volatile long lastBaseVersion;

        private Session(Path table, Process node) {
            this.table = table;
            this.node = node;
            this.requests = new BufferedWriter(new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8));
            this.answers = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        }

        /** Runs {@code queries} on the table, as {@link LanceDb#read} does. */
        public synchronized Map<String, Result> read(List<Query> queries) throws IOException {
            return results(table, queries, exchange(spec(queries)));
        }

        /**
         * Opens the table once and keeps that handle for {@link #readHeld}, as an application that
         * opens a table at its start does.
         *
         * @return the base table version the handle opened
         */
        public long hold() throws IOException {
            return hold(null);
        }

        /**
         * As {@link #hold()}, connecting with LanceDB's {@code readConsistencyInterval} (null: its
         * default, none), which makes the handle look for a newer base version when it is older.
         */
        public synchronized long hold(Duration readConsistencyInterval) throws IOException {
            List<String> lines = exchange(
                    readConsistencyInterval == null
                            ? "{\"hold\":true}"
                            : "{\"hold\":true,\"readConsistencyInterval\":"
                                    + readConsistencyInterval.toMillis() / 1000.0 + "}");
            JsonNode answer = lines.size() == 1 ? JSON.readTree(lines.get(0)) : null;
            if (answer == null || !answer.has("version")) {
                throw new IllegalStateException("LanceDB could not open " + table + ": " + lines);
            }
            return answer.get("version").asLong();
        }

        /** The base table version the handle of the last read or {@link #hold} had opened; 0 if none. */
        public long lastBaseVersion() {
            return lastBaseVersion;
        }

        /** Runs {@code queries} on the handle {@link #hold} opened, on LanceDB's defaults. */
        public synchronized Map<String, Result> readHeld(List<Query> queries) throws IOException {
            return results(table, queries, exchange("{\"held\":" + spec(queries) + "}"));
        }

        /** Sends one request line; the lines answered before its end. */
        private List<String> exchange(String request) throws IOException {
            requests.write(request);
            requests.newLine();
            requests.flush();
            List<String> lines = new ArrayList<>();
            for (String line; (line = answers.readLine()) != null; ) {
                JsonNode answer = JSON.readTree(line);
                if (answer.has("end")) {
                    lastBaseVersion = answer.path("version").asLong(0);
                    return lines;
                }
                lines.add(line);
            }
            throw new IllegalStateException("node serve.mjs on " + table + " ended (exit "
                    + (node.isAlive() ? "none yet" : node.exitValue()) + ") after " + lines);
        }

        /** Closes the process's input, which ends it; kills it if it has not ended within 10 s. */
        @Override
        public void close() throws IOException, InterruptedException {
            try {
                requests.close();
            } finally {
                if (!node.waitFor(10, TimeUnit.SECONDS)) {
                    node.destroyForcibly().waitFor();
                }
            }
        }
    }

    /** Starts a {@link Session} on the table at {@code table} (which need not exist yet). */
    public static Session session(Path table) throws IOException, InterruptedException {
        Path dir = install();
        Process node = new ProcessBuilder(
                        "node", "serve.mjs", table.toAbsolutePath().toString())
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        return new Session(table, node);
    }

    /**
     * Installs the client once per JVM (npm runs only when the module's install is missing or its
     * package.json differs from the pinned one). A test polling LanceDB calls it before its job
     * starts, so that the first read does not wait for npm.
     */
    public static synchronized Path install() throws IOException, InterruptedException {
        if (installed) {
            return INSTALL;
        }
        Files.createDirectories(INSTALL);
        byte[] pinned = resource("package.json");
        boolean changed = !Files.exists(INSTALL.resolve("package.json"))
                || !java.util.Arrays.equals(pinned, Files.readAllBytes(INSTALL.resolve("package.json")));
        for (String f : FILES) {
            Path tmp = INSTALL.resolve(f + ".tmp");
            Files.write(tmp, resource(f));
            Files.move(tmp, INSTALL.resolve(f), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        if (changed || !Files.exists(INSTALL.resolve("node_modules/@lancedb/lancedb/package.json"))) {
            Process npm;
            try {
                npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--no-package-lock")
                        .directory(INSTALL.toFile())
                        .redirectErrorStream(true)
                        .start();
            } catch (IOException e) {
                throw new IllegalStateException(
                        "the LanceDB reader tests need Node.js 20 and npm on the PATH (npm install in " + INSTALL + ")",
                        e);
            }
            String log = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!npm.waitFor(10, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                throw new IllegalStateException("npm install of @lancedb/lancedb in " + INSTALL + " failed:\n" + log);
            }
        }
        installed = true;
        return INSTALL;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = LanceDb.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + RESOURCES + name
                        + " is not on the classpath (flink-walsink's test classes or test-jar)");
            }
            return in.readAllBytes();
        }
    }
}
