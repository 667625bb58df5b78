package io.walsink.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.walsink.storage.S3Options;
import io.walsink.testing.LanceDb;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The document search demo as the README runs it: while the job appends documents, the shipped
 * {@code search-documents.mjs} searches the table through LanceDB on its defaults until it answers,
 * and its answers hold (every full-text hit has the word, every neighbour of a document is of the
 * same topic); the demo's own summary then finds every document once and both searches right.
 */
class DocumentSearchDemoTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void lanceDbSearchesTheDocumentsWhileTheJobAppendsThem() throws Exception {
        Path script = LanceDb.install().resolve("search-documents.mjs");
        Files.copy(Path.of("src/demo/search-documents.mjs"), script, StandardCopyOption.REPLACE_EXISTING);
        Path database = dir.resolve("db");
        DemoArgs args = new DemoArgs(database.toString(), 12_000, 1, 2, S3Options.defaults(), 600, 2, 1, Map.of());
        CompletableFuture<Console.Printed<Boolean>> demo = CompletableFuture.supplyAsync(() -> uncheckedRun(args));

        String word = Documents.TOPIC_WORDS[0][0];
        List<String> refusals = new ArrayList<>();
        JsonNode answer = null;
        boolean runningAfterAnswer = false;
        while (answer == null && !demo.isDone()) {
            JsonNode reply = search(script, database, word);
            if (reply.has("error")) {
                refusals.add(reply.get("error").asText()); // not created yet: ask again
            } else if (reply.get("text").size() == 5) {
                // five documents hold the word, all of its topic: the vector search after the text
                // search sees at least those, so its five nearest to one of them are of that topic
                answer = reply;
                runningAfterAnswer = !demo.isDone();
            }
        }
        System.out.printf(
                "LanceDB refused %d searches before it answered; the last: %s%n",
                refusals.size(), refusals.isEmpty() ? "none" : refusals.get(refusals.size() - 1));
        assertThat(answer)
                .as("a LanceDB answer before the job ended; refusals: %s", refusals)
                .isNotNull();
        assertThat(runningAfterAnswer)
                .as("the job was still running when LanceDB answered")
                .isTrue();
        for (JsonNode hit : answer.get("text")) {
            long id = hit.get(0).asLong();
            assertThat(List.of(Documents.text(id).split(" ")))
                    .as("full-text hit %d for '%s'", id, word)
                    .contains(word);
        }
        assertThat(answer.get("vector").size())
                .as("neighbours of the best text hit")
                .isEqualTo(5);
        for (JsonNode hit : answer.get("vector")) {
            assertThat(Documents.topic(hit.get(0).asLong()))
                    .as("topic of neighbour %s", hit.get(0))
                    .isEqualTo(0);
        }

        Console.Printed<Boolean> run = demo.get(6, TimeUnit.MINUTES);
        assertThat(run.out())
                .contains(ExamplesTest.finished(12_000, "documents"))
                .contains("table matches    YES");
        assertThat(run.result()).isTrue();
        ExamplesTest.assertVerifies(DocumentSearchDemo.table(args));
    }

    private static Console.Printed<Boolean> uncheckedRun(DemoArgs args) {
        try {
            return Console.capture(() -> DocumentSearchDemo.run(args));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode search(Path script, Path database, String word) throws Exception {
        Process node = new ProcessBuilder(
                        "node", script.toString(), database.toString(), DocumentSearchDemo.TABLE, word, "--json")
                .redirectErrorStream(true)
                .start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(2, TimeUnit.MINUTES)).as("node ended").isTrue();
        String last = out.strip().lines().reduce((a, b) -> b).orElse("");
        assertThat(last)
                .as("search-documents.mjs output (exit %d)", node.exitValue())
                .startsWith("{");
        return JSON.readTree(last);
    }
}
