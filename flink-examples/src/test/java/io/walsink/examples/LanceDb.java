package io.walsink.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * LanceDB's Node client ({@code @lancedb/lancedb}, whose core is a newer Lance than lance-core
 * 7.0.0) as an independent reader of what walsink writes. The package, at the exact version
 * {@code src/test/lancedb/package.json} pins, is installed from npm into {@code target/lancedb} the
 * first time a test needs it; each read runs {@code src/test/lancedb/read.mjs} in a Node process.
 */
final class LanceDb {
    private static final Path SOURCES = Path.of("src/test/lancedb");
    private static final Path INSTALL = Path.of("target/lancedb");
    private static final List<String> FILES = List.of("package.json", "read.mjs");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static boolean installed;

    private LanceDb() {}

    /**
     * A query as a LanceDB user writes it.
     *
     * @param where a filter in Lance's SQL, or null for all rows
     * @param lsm null for LanceDB's default read; false for the base table only
     */
    record Query(String name, String where, List<String> columns, Boolean lsm) {
        static Query of(String name, String where, List<String> columns) {
            return new Query(name, where, columns, null);
        }
    }

    /** What one query returned: its rows (values as strings, null as null), or LanceDB's error. */
    record Result(List<List<String>> rows, String error) {
        boolean failed() {
            return error != null;
        }
    }

    /** Runs {@code queries} on the table at {@code table}, in one Node process. */
    static Map<String, Result> read(Path table, List<Query> queries) throws IOException, InterruptedException {
        Path dir = install();
        ArrayNode spec = JSON.createArrayNode();
        for (Query q : queries) {
            ObjectNode node = spec.addObject().put("name", q.name()).put("where", q.where());
            q.columns().forEach(node.putArray("columns")::add);
            if (q.lsm() != null) {
                node.put("lsm", q.lsm());
            }
        }
        Process node = new ProcessBuilder(
                        "node", "read.mjs", table.toAbsolutePath().toString(), JSON.writeValueAsString(spec))
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(5, TimeUnit.MINUTES) || node.exitValue() != 0) {
            throw new IllegalStateException("node read.mjs failed on " + table + ": " + out);
        }
        Map<String, Result> results = new LinkedHashMap<>();
        for (String line : out.lines().toList()) {
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
                row.forEach(v -> values.add(v.isNull() ? null : v.asText()));
                rows.add(values);
            }
            results.put(r.get("name").asText(), new Result(rows, null));
        }
        if (results.size() != queries.size()) {
            throw new IllegalStateException("LanceDB answered " + results.size() + " of " + queries.size()
                    + " queries on " + table + ": " + out);
        }
        return results;
    }

    /** Installs the client once per JVM; again only when the committed package.json changed. */
    private static synchronized Path install() throws IOException, InterruptedException {
        if (installed) {
            return INSTALL;
        }
        Files.createDirectories(INSTALL);
        boolean changed = !Files.exists(INSTALL.resolve("package.json"))
                || Files.mismatch(SOURCES.resolve("package.json"), INSTALL.resolve("package.json")) != -1;
        for (String f : FILES) {
            Files.copy(SOURCES.resolve(f), INSTALL.resolve(f), StandardCopyOption.REPLACE_EXISTING);
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
}
