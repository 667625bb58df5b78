package io.walsink.bench.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.walsink.bench.runner.Definitions;
import org.junit.jupiter.api.Test;

/**
 * The engine runner at a tiny size: both lance-core modes and our writer run on real local
 * tables (each run checks that its writer holds every row), and the replay section reopens a
 * real shard. Only the report's shape is asserted; its numbers are timings.
 */
class EngineReportTest {
    @Test
    void printsEveryWriterAndTheReplaySection() {
        String text = EngineReport.report(Definitions.get("engine")
                .parse("--rows", "20480", "--keys", "1000", "--rounds", "2", "--entry-rows", "2048"));

        assertThat(text)
                .contains(
                        "lance-core non-durable",
                        "walsink row by row, durable every tick",
                        "walsink batch puts, durable every tick",
                        "lance-core durable")
                .contains("puts vs lance-core non-durable: median (min-max)", "durable vs lance-core durable")
                .contains("cores busy (puts)", "per CPU s: median (min-max)")
                .contains("walsink's row path against its batch path, rows/s to the last put (goal >= 0.7x): ")
                .contains("WAL: 20,480 rows in 10 entries")
                .contains("replay MB/s median", "Arrow peak / payload")
                // lance-core's reopen replayed every row of its own WAL (checked by the report)
                .contains("lance-core replay MB/s", "rows/s against lance-core 7.0.0 reopening a writer");
        assertThat(text.lines().filter(l -> l.matches("\\s+[12]  (lance-core|walsink).*")))
                .hasSize(8);
    }
}
