package io.walsink.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The runner's command line over the real registry: every definition is listed and explains
 * itself, bad command lines exit with 2, and the engine definition runs end to end at a tiny size
 * with its references' rows in the printed table. Only the tables' shape is asserted; their
 * numbers are timings.
 */
class BenchmarkRunnerTest {
    @Test
    void listsEveryDefinitionOnceByName() {
        Result r = run("--list");

        assertThat(r.code()).isZero();
        Set<String> names = new HashSet<>();
        for (Definition d : Definitions.all()) {
            assertThat(names.add(d.name())).as("names are unique: " + d.name()).isTrue();
            assertThat(r.out()).contains(d.name(), d.goal());
        }
        assertThat(names)
                .contains(
                        "q1",
                        "engine",
                        "many-buckets",
                        "pipeline-latency",
                        "scan",
                        "maintenance",
                        "lookups",
                        "indexes",
                        "vector-query",
                        "restore");
    }

    @Test
    void everyDefinitionDeclaresWhatItRunsAndPrintsItsOptions() {
        for (Definition d : Definitions.all()) {
            assertThat(List.of(d.goal(), d.runs(), d.references(), d.rules()))
                    .as(d.name())
                    .allSatisfy(text -> assertThat(text).isNotBlank());
            Result r = run(d.name(), "-h");
            assertThat(r.code()).isZero();
            assertThat(r.out()).contains("BenchmarkRunner " + d.name(), "goal:", "references:", "rules:");
            d.options().forEach(o -> assertThat(r.out()).contains(o.flag()));
        }
    }

    @Test
    void refusesUnknownNamesAndOptionsWithTheUsage() {
        assertThat(run().code()).isEqualTo(2);
        Result unknown = run("q2");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("no benchmark 'q2'", "q1");
        Result badOption = run("engine", "--rowz", "1");
        assertThat(badOption.code()).isEqualTo(2);
        assertThat(badOption.err()).contains("unknown option '--rowz'", "--rows N");
        Result missingValue = run("engine", "--rows");
        assertThat(missingValue.code()).isEqualTo(2);
        assertThat(missingValue.err()).contains("needs a value");
        Result misfit = run("q1", "--rows", "20001");
        assertThat(misfit.code()).isEqualTo(2);
        assertThat(misfit.err()).contains("multiples of the parallelism");
    }

    @Test
    void runsTheEngineDefinitionWithItsReferencesInTheTable() {
        Result r = run("engine", "--rows", "20480", "--keys", "1000", "--rounds", "1", "--entry-rows", "2048");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("walsink row by row, durable every tick", "lance-core non-durable", "lance-core durable")
                .contains("replay MB/s median");
        assertThat(r.out().lines().filter(l -> l.matches("\\s+1  lance-core (non-durable|durable).*")))
                .hasSize(2);
    }

    @Test
    void runsTheQ1JobInAChildJvmWithAPreTouchedHeap() {
        Result r = run(
                "q1",
                "--rows",
                "20000",
                "--keys",
                "5000",
                "--rounds",
                "1",
                "--warmup-rows",
                "0",
                "--pipelines",
                "datastream",
                "--floor-rounds",
                "0",
                "--heap",
                "512m");

        assertThat(r.code()).as(r.err()).isZero();
        // the child's output, passed through: its summary, with each side's CPU and faults per row
        assertThat(r.out()).contains("discarding sink behind the same keyBy", "walsink faults/row", "yes (5,000 keys)");
    }

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = BenchmarkRunner.run(args, o, e);
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
